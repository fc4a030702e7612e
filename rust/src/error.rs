//! The one error type of the crate. Every variant names what is wrong, so that a Java
//! exception built from it tells the user which argument or which serialized field to look at.

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Why an operation was refused. Never a panic: every fallible path returns one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A caller-supplied argument is out of range (`IllegalArgumentException` on the JVM).
    #[error("invalid argument {name}: {reason}")]
    InvalidArgument {
        /// The argument, by its Java name: `expectedInsertions`, `fpp`, `numBits`, ...
        name: &'static str,
        /// What is wrong with its value.
        reason: String,
    },

    /// Two filters cannot be combined (`IllegalArgumentException` on the JVM); the message names
    /// every parameter that differs.
    #[error("incompatible filters: {0}")]
    Incompatible(String),

    /// Serialized bytes are malformed (`CorruptFilterException` on the JVM).
    #[error("corrupt filter: {field}: {reason}")]
    Corrupt {
        /// The first bad field, by its `FORMAT.md` name: `magic`, `length`, `checksum`, ...
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },

    /// Memory for `what` could not be allocated, or would not fit this process's memory limit
    /// (`OutOfMemoryError` on the JVM; `FilterTooLargeException` when decoding).
    #[error("cannot allocate {bytes} bytes for {what}{}", limit_note(*.limit))]
    Allocation {
        /// What the memory was for: "the bit array", "the serialized filter", ...
        what: &'static str,
        /// How many bytes were asked for.
        bytes: u64,
        /// The process's memory limit in bytes, when the request was refused because it exceeds
        /// it (see `memory_limit`), rather than by the allocator.
        limit: Option<u64>,
    },

    /// Decoding refused a filter larger than the caller's limit (`FilterTooLargeException` on
    /// the JVM): a few bytes of sparse payload can describe a filter of 2^43 bits.
    #[error("filter of {num_bits} bits exceeds the decode limit of {limit} bits")]
    TooLarge {
        /// The bit count the input declares.
        num_bits: u64,
        /// The largest bit count the caller accepts.
        limit: u64,
    },
}

fn limit_note(limit: Option<u64>) -> String {
    match limit {
        Some(limit) => format!(
            ", more than this process's memory limit of {limit} bytes (cgroup memory.max or physical memory)"
        ),
        None => String::new(),
    }
}

impl Error {
    pub(crate) fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name,
            reason: reason.into(),
        }
    }

    /// An allocation of `bytes` bytes for `what` that the allocator refused.
    pub(crate) fn allocation(what: &'static str, bytes: u64) -> Self {
        Error::Allocation {
            what,
            bytes,
            limit: None,
        }
    }

    pub(crate) fn corrupt(field: &'static str, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            field,
            reason: reason.into(),
        }
    }
}

/// A float as Java's `Double.toString` would show it: plain between 10^-3 and 10^7, in
/// scientific notation outside (Rust's `{}` writes 4.9e-324 with 324 digits).
pub(crate) fn display_f64(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-3..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}
