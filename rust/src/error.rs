//! The one error type of the crate. Every variant names what is wrong, so that a Java
//! exception built from it tells the user which argument or which serialized field to look at.

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Why an operation was refused. Never a panic: every fallible path returns one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A caller-supplied argument is out of range (`IllegalArgumentException` on the JVM).
    #[error("invalid argument {name}: {reason}")]
    InvalidArgument { name: &'static str, reason: String },

    /// Two filters cannot be combined (`IllegalArgumentException` on the JVM).
    #[error("incompatible filters: {0}")]
    Incompatible(String),

    /// Serialized bytes are malformed (`CorruptFilterException` on the JVM).
    #[error("corrupt filter: {field}: {reason}")]
    Corrupt { field: &'static str, reason: String },

    /// The bit array could not be allocated (`OutOfMemoryError` on the JVM).
    #[error("cannot allocate {bytes} bytes for the bit array")]
    Allocation { bytes: u64 },
}

impl Error {
    pub(crate) fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name,
            reason: reason.into(),
        }
    }

    pub(crate) fn corrupt(field: &'static str, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            field,
            reason: reason.into(),
        }
    }
}
