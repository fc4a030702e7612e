//! The memory this process may use, so that a bit array that can never fit is refused when the
//! filter is created instead of when it is first filled.
//!
//! Bit arrays come from `calloc`, which on Linux only reserves address space: a container with a
//! 3 GiB limit lets `create` of a 4 GiB filter succeed, and the kernel kills the process (SIGKILL,
//! no exception, no message) at the first `putAll` that touches enough pages. So a request larger
//! than the limit fails at once with an error naming both numbers. The limit is the smallest of
//! the cgroup v2 `memory.max`, the cgroup v1 `memory.limit_in_bytes` and the physical memory
//! (`MemTotal`), read once. What the rest of the process already uses is not subtracted: a filter
//! that fits alone may still not fit beside everything else, which only the kernel can tell.
//! `SPARKBLOOM_IGNORE_MEMORY_LIMIT=1` in the environment turns the check off.

use std::sync::OnceLock;

/// The process's memory limit in bytes, if one could be read.
pub(crate) fn limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        if std::env::var_os("SPARKBLOOM_IGNORE_MEMORY_LIMIT").is_some_and(|v| v == "1") {
            return None;
        }
        let read = |path: &str| std::fs::read_to_string(path).ok();
        smallest_limit(
            read("/sys/fs/cgroup/memory.max").as_deref(),
            read("/sys/fs/cgroup/memory/memory.limit_in_bytes").as_deref(),
            read("/proc/meminfo").as_deref(),
        )
    })
}

/// The smallest of the limits these files state (their contents, where present).
fn smallest_limit(
    cgroup2_max: Option<&str>,
    cgroup1_limit: Option<&str>,
    meminfo: Option<&str>,
) -> Option<u64> {
    // cgroup v2 writes "max" for no limit; v1 writes a huge number (2^63 rounded to pages).
    let cgroup = |text: Option<&str>| text.and_then(|t| t.trim().parse::<u64>().ok());
    let mem_total = meminfo.and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    [cgroup(cgroup2_max), cgroup(cgroup1_limit), mem_total]
        .into_iter()
        .flatten()
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_stated_limit_wins() {
        let meminfo = "MemTotal:       24567000 kB\nMemFree:        1000 kB\n";
        assert_eq!(
            smallest_limit(Some("3221225472\n"), None, Some(meminfo)),
            Some(3 << 30),
            "a container limit below physical memory"
        );
        assert_eq!(
            smallest_limit(Some("max\n"), None, Some(meminfo)),
            Some(24_567_000 * 1024),
            "cgroup v2 without a limit: physical memory"
        );
        assert_eq!(
            smallest_limit(None, Some("9223372036854771712\n"), Some(meminfo)),
            Some(24_567_000 * 1024),
            "cgroup v1 without a limit"
        );
        assert_eq!(smallest_limit(None, None, None), None);
        assert_eq!(smallest_limit(Some("garbage"), None, Some("nothing")), None);
    }

    #[test]
    fn this_machine_has_a_limit() {
        // Linux always has /proc/meminfo; the limit is at least some memory.
        if cfg!(target_os = "linux") && std::env::var_os("SPARKBLOOM_IGNORE_MEMORY_LIMIT").is_none()
        {
            assert!(limit().is_some_and(|bytes| bytes > 1 << 20));
        }
    }
}
