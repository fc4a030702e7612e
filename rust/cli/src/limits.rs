//! The bounds every command reads within: `--max-bits` for a filter read from a file (checked
//! against its header before anything is allocated) and `--max-line-bytes` for one input line.

use std::fmt;

/// `--max-line-bytes` unless given: a line longer than this is almost surely not a key.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 64 << 20;

/// The largest filter (in bits) a file may declare unless `--max-bits` says otherwise: half the
/// memory this process may have (the smallest of physical memory and the address-space and data
/// limits, `ulimit -v`/`-d`), since a filter is read into memory whole and the run needs room
/// beside it; at least one MiB of bits.
pub fn default_max_bits() -> u64 {
    let bytes = memory_bytes().unwrap_or(u64::MAX / 8);
    (bytes / 2).saturating_mul(8).max(8 << 20)
}

/// Physical memory, `RLIMIT_AS` and `RLIMIT_DATA`, whichever is smallest.
fn memory_bytes() -> Option<u64> {
    // SAFETY: sysconf and getrlimit only read process-wide values into locals.
    let physical = unsafe {
        let pages = libc::sysconf(libc::_SC_PHYS_PAGES);
        let page = libc::sysconf(libc::_SC_PAGE_SIZE);
        (pages > 0 && page > 0).then(|| (pages as u64).saturating_mul(page as u64))
    };
    let rlimit = |resource| {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid, writable rlimit.
        let ok = unsafe { libc::getrlimit(resource, &mut limit) } == 0;
        (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
    };
    [physical, rlimit(libc::RLIMIT_AS), rlimit(libc::RLIMIT_DATA)]
        .into_iter()
        .flatten()
        .min()
}

/// A count with an optional binary suffix: `1048576`, `64Ki`, `64Mi`, `2Gi`, `2^37`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amount(pub u64);

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

pub fn parse_amount(text: &str) -> Result<Amount, String> {
    let text = text.trim();
    if let Some((base, exponent)) = text.split_once('^') {
        let (Ok(2), Ok(exponent)) = (base.parse::<u64>(), exponent.parse::<u32>()) else {
            return Err(format!("not a power of two: {text:?}"));
        };
        return 1u64
            .checked_shl(exponent)
            .filter(|_| exponent < 64)
            .map(Amount)
            .ok_or_else(|| format!("{text} does not fit 64 bits"));
    }
    let (digits, shift) = [("Ki", 10), ("Mi", 20), ("Gi", 30), ("Ti", 40)]
        .iter()
        .find_map(|&(suffix, shift)| text.strip_suffix(suffix).map(|d| (d, shift)))
        .unwrap_or((text, 0));
    let value: u64 = digits.parse().map_err(|_| {
        format!("not a positive integer (optionally with Ki, Mi, Gi, Ti or as 2^N): {text:?}")
    })?;
    if value == 0 {
        return Err(format!("must be positive, got {text}"));
    }
    value
        .checked_mul(1 << shift)
        .map(Amount)
        .ok_or_else(|| format!("{text} does not fit 64 bits"))
}

/// What a command may read: see the module comment.
#[derive(Clone, Copy)]
pub struct Limits {
    pub max_bits: u64,
    pub max_line_bytes: u64,
}
