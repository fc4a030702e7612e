//! The memory this process may use, so that a bit array that can never fit is refused when the
//! filter is created instead of when it is first filled.
//!
//! Bit arrays come from `calloc`, which on Linux only reserves address space: a container with a
//! 3 GiB limit lets `create` of a 4 GiB filter succeed, and the kernel kills the process (SIGKILL,
//! no exception, no message) at the first `putAll` that touches enough pages. So a request larger
//! than the limit fails at once with an error naming both numbers. The limit is the smallest of
//! the memory cgroup limits of this process and its ancestors (v1 `memory.limit_in_bytes`, v2
//! `memory.max`, found through `/proc/self/cgroup`) and the physical memory (`MemTotal`), read
//! once. What the rest of the process already uses is not subtracted: a filter that fits alone
//! may still not fit beside everything else, which only the kernel can tell.
//! `SPARKBLOOM_IGNORE_MEMORY_LIMIT=1` in the environment turns the check off.

use std::sync::OnceLock;

/// The process's memory limit in bytes, if one could be read.
pub(crate) fn limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        if std::env::var_os("SPARKBLOOM_IGNORE_MEMORY_LIMIT").is_some_and(|v| v == "1") {
            return None;
        }
        limit_from(|path| std::fs::read_to_string(path).ok())
    })
}

/// The smallest limit found through `read` (a file's contents by path): the memory cgroup of
/// this process and each of its ancestors (a parent's limit binds its children), for cgroup v1
/// and v2 as `/proc/self/cgroup` names them, and `MemTotal`.
fn limit_from(read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    let mut limits = Vec::new();
    let own = read("/proc/self/cgroup").unwrap_or_default();
    for line in own.lines() {
        // "4:memory:/a/b" (v1) or "0::/a/b" (v2).
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let files: &[&str] = if id == "0" && controllers.is_empty() {
            &[
                "/sys/fs/cgroup{}/memory.max",
                "/sys/fs/cgroup/unified{}/memory.max",
            ]
        } else if controllers.split(',').any(|c| c == "memory") {
            &["/sys/fs/cgroup/memory{}/memory.limit_in_bytes"]
        } else {
            continue;
        };
        for dir in ancestors(path) {
            for file in files {
                limits.extend(read(&file.replace("{}", dir)).and_then(|t| parse_cgroup(&t)));
            }
        }
    }
    // The mount roots themselves, for a cgroup namespace that shows the process at "/".
    for file in [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ] {
        limits.extend(read(file).and_then(|t| parse_cgroup(&t)));
    }
    limits.extend(read("/proc/meminfo").and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    }));
    limits.into_iter().min()
}

/// "/a/b" → "/a/b", "/a", "" (the mount root).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let path = path.trim_end_matches('/');
    std::iter::successors(Some(path), |p| p.rfind('/').map(|i| &p[..i]))
}

/// A cgroup limit file: a byte count, or "max" (v2) for none. v1 writes a huge number for none,
/// which loses to any real limit.
fn parse_cgroup(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn files(entries: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |path| map.get(path).cloned()
    }

    const MEMINFO: &str = "MemTotal:       24567000 kB\nMemFree:        1000 kB\n";

    #[test]
    fn a_v1_cgroup_limit_of_the_process_or_an_ancestor_binds() {
        let read = files(&[
            ("/proc/self/cgroup", "5:devices:/\n4:memory:/jobs/job7\n"),
            (
                "/sys/fs/cgroup/memory/jobs/job7/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            (
                "/sys/fs/cgroup/memory/jobs/memory.limit_in_bytes",
                "3221225472\n",
            ),
            (
                "/sys/fs/cgroup/memory/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            ("/proc/meminfo", MEMINFO),
        ]);
        assert_eq!(limit_from(read), Some(3 << 30));
    }

    #[test]
    fn a_v2_limit_and_max() {
        let read = files(&[
            ("/proc/self/cgroup", "0::/pod/c1\n"),
            ("/sys/fs/cgroup/pod/c1/memory.max", "1073741824\n"),
            ("/sys/fs/cgroup/pod/memory.max", "max\n"),
            ("/proc/meminfo", MEMINFO),
        ]);
        assert_eq!(limit_from(read), Some(1 << 30));
        let unlimited = files(&[
            ("/proc/self/cgroup", "0::/\n"),
            ("/sys/fs/cgroup/memory.max", "max\n"),
            ("/proc/meminfo", MEMINFO),
        ]);
        assert_eq!(
            limit_from(unlimited),
            Some(24_567_000 * 1024),
            "physical memory"
        );
    }

    #[test]
    fn nothing_readable_means_no_limit() {
        assert_eq!(limit_from(files(&[])), None);
        assert_eq!(limit_from(files(&[("/proc/meminfo", "garbage")])), None);
    }

    #[test]
    fn ancestors_end_at_the_root() {
        assert_eq!(ancestors("/a/b/").collect::<Vec<_>>(), ["/a/b", "/a", ""]);
        assert_eq!(ancestors("/").collect::<Vec<_>>(), [""]);
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
