//! Large word arrays on 2 MiB pages: Linux's transparent huge pages, asked for with
//! `madvise(MADV_HUGEPAGE)` before the array's pages are first written.
//!
//! A filter beyond cache is probed at random cache lines. On 4 KiB pages such a probe of an
//! array larger than the TLB's reach (a few thousand entries: some megabytes) misses the TLB
//! too, and the core walks the page tables before the line's own miss can start; the walks in
//! flight are few, so they also cap how many lines are fetched at once. On 2 MiB pages the
//! 12 MB filter of (10^7, 10^-2) takes six TLB entries.
//!
//! Many systems leave transparent huge pages to `madvise` (`/sys/kernel/mm/transparent_hugepage/
//! enabled`); where it says `never` the advice is ignored, where `always` it changes nothing.
//! Only the whole 2 MiB extents inside an array are advised, so arrays smaller than two extents
//! may get none, and no memory outside the array changes. The price: a 2 MiB page is committed
//! whole when any of its bytes is first written, so a large filter that holds few keys takes
//! more memory than on 4 KiB pages (at most its size, what it takes once filled).

/// A transparent huge page on x86-64, and on arm64 with 4 KiB base pages (elsewhere the
/// kernel rounds the advice to its own huge pages).
const HUGE_PAGE: usize = 2 << 20;

/// Advises the kernel to back the whole 2 MiB extents of `[start, start + len)` with huge
/// pages. The range must be memory this process owns (an allocation it has not freed); the
/// advice changes no byte of it, and failure (an old kernel, another OS) leaves it on small
/// pages, so nothing is reported.
pub(crate) fn advise(start: *const u8, len: usize) {
    if let Some((first, len)) = whole_extents(start as usize, len) {
        os::advise_huge(first, len);
    }
}

/// The first whole 2 MiB extent of `[start, start + len)` and the length of the whole extents
/// from there, if there is one.
fn whole_extents(start: usize, len: usize) -> Option<(usize, usize)> {
    let first = start.checked_next_multiple_of(HUGE_PAGE)?;
    let end = start.saturating_add(len) / HUGE_PAGE * HUGE_PAGE;
    (end > first).then(|| (first, end - first))
}

#[cfg(target_os = "linux")]
mod os {
    use std::ffi::{c_int, c_void};

    /// `MADV_HUGEPAGE` in Linux's `asm-generic/mman-common.h`, x86-64's and arm64's value (a
    /// kernel that knows no such advice refuses it, which changes nothing).
    const MADV_HUGEPAGE: c_int = 14;

    unsafe extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }

    /// `madvise(MADV_HUGEPAGE)` over `len` bytes at `start`, both multiples of the page size.
    pub(super) fn advise_huge(start: usize, len: usize) {
        // SAFETY: the caller's range lies inside one of its own allocations, and this advice
        // only changes how the kernel backs those pages, never their contents.
        let _ = unsafe { madvise(start as *mut c_void, len, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    /// Elsewhere no advice: the system's default pages.
    pub(super) fn advise_huge(_start: usize, _len: usize) {}
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{HUGE_PAGE, whole_extents};

    #[test]
    fn only_whole_extents_inside_the_range() {
        let h = HUGE_PAGE;
        assert_eq!(whole_extents(h, 3 * h), Some((h, 3 * h)));
        assert_eq!(whole_extents(h + 8, 3 * h), Some((2 * h, 2 * h)));
        assert_eq!(whole_extents(h - 8, 2 * h + 8), Some((h, 2 * h)));
        assert_eq!(whole_extents(h - 8, 2 * h + 7), Some((h, h)));
        assert_eq!(whole_extents(h + 8, 2 * h - 8), Some((2 * h, h)));
        assert_eq!(whole_extents(h + 8, 2 * h - 9), None);
        assert_eq!(whole_extents(h, h - 1), None);
        assert_eq!(whole_extents(usize::MAX - 8, 64), None);
    }

    /// Whether the mapping that holds `address` was advised `MADV_HUGEPAGE`: its `VmFlags` in
    /// `/proc/self/smaps` include `hg`. Linux only.
    pub(crate) fn advised(address: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((from, to)) = first.split_once('-')
                && let (Ok(from), Ok(to)) = (
                    usize::from_str_radix(from, 16),
                    usize::from_str_radix(to, 16),
                )
            {
                inside = (from..to).contains(&address);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.split_whitespace().any(|flag| flag == "hg");
            }
        }
        panic!("no mapping holds {address:#x}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_whole_extents_are_advised() {
        let words = vec![0u64; 3 * HUGE_PAGE / 8];
        let (first, len) = whole_extents(words.as_ptr() as usize, words.len() * 8).unwrap();
        super::advise(words.as_ptr().cast(), words.len() * 8);
        assert!(advised(first) && advised(first + len - 1));
    }
}
