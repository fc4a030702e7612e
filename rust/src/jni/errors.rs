//! Errors at the JNI boundary and [`run`], the helper every `Java_*` export is built on.
//!
//! | Rust error                                       | Java exception                         |
//! |--------------------------------------------------|----------------------------------------|
//! | `Error::InvalidArgument`, `Error::Incompatible`  | `java.lang.IllegalArgumentException`   |
//! | `Error::Corrupt`                                 | `io.sparkbloom.CorruptFilterException` |
//! | `Error::Allocation` refused by the allocator     | `java.lang.OutOfMemoryError`           |
//! | `Error::Allocation` above the memory limit, [`JniError::ExceedsMemory`] | `io.sparkbloom.FilterExceedsMemoryException` (an `IllegalArgumentException`) |
//! | `Error::TooLarge`, and `Error::Allocation` while decoding ([`decoding`]) | `io.sparkbloom.FilterTooLargeException` (a `CorruptFilterException`) |
//! | [`JniError::Null`]                               | `java.lang.NullPointerException`       |
//! | [`JniError::Closed`]                             | `java.lang.IllegalStateException`      |
//! | a panic (`&str` or `String` payload)             | `java.lang.RuntimeException`           |
//! | a JNI call that failed with an exception pending | that exception, unchanged              |

use jni::errors::Error as JniCallError;
use jni::strings::{JNIStr, JNIString};
use jni::{Env, EnvUnowned, Outcome, jni_str};

/// Everything a native method can fail with.
#[derive(Debug)]
pub(crate) enum JniError {
    /// An error of the core.
    Core(crate::Error),
    /// A required reference argument was null; names the argument.
    Null(&'static str),
    /// The handle is 0: the filter was closed (or never initialised).
    Closed,
    /// A JNI call failed; when a Java exception is pending it is left to propagate.
    Jni(JniCallError),
    /// A caught panic, with its message.
    Panic(String),
    /// A decoder refused or could not allocate a valid filter: a checked exception, since the
    /// bytes come from outside (Spark treats an `Error` as fatal to the executor).
    TooLargeToDecode(String),
    /// A result larger than the most the Java heap can ever hold (`-Xmx`): a limit, not an
    /// exhausted heap, so not an `OutOfMemoryError`.
    ExceedsMemory(String),
}

/// A decoder's result, with the filter's allocation failing as [`JniError::TooLargeToDecode`]
/// rather than `OutOfMemoryError`.
pub(crate) fn decoding<T>(result: crate::Result<T>) -> JniResult<T> {
    result.map_err(|e| match e {
        crate::Error::Allocation { .. } | crate::Error::TooLarge { .. } => {
            JniError::TooLargeToDecode(e.to_string())
        }
        e => JniError::Core(e),
    })
}

impl From<crate::Error> for JniError {
    fn from(e: crate::Error) -> Self {
        JniError::Core(e)
    }
}

impl From<JniCallError> for JniError {
    fn from(e: JniCallError) -> Self {
        JniError::Jni(e)
    }
}

pub(crate) type JniResult<T> = std::result::Result<T, JniError>;

/// Runs the body of a native method: catches panics, and turns an error or a panic into a
/// pending Java exception while returning `T::default()` (which Java never sees).
///
/// jni's own `ThrowRuntimeExAndDefault` policy is not used: it maps every error to
/// `RuntimeException` and loses `String` panic messages (jni 0.22.4).
pub(crate) fn run<'local, T, F>(mut env: EnvUnowned<'local>, body: F) -> T
where
    T: Default,
    F: FnOnce(&mut Env<'local>) -> JniResult<T>,
{
    let failure = match env.with_env(body).into_outcome() {
        Outcome::Ok(value) => return value,
        Outcome::Err(error) => error,
        Outcome::Panic(payload) => JniError::Panic(panic_message(payload)),
    };
    // `with_env` guards the throwing against panics too, so nothing unwinds into the JVM. If
    // throwing fails (out of memory), whatever the JVM made pending propagates instead.
    let _ = env
        .with_env(|env| -> JniResult<()> {
            throw(env, failure);
            Ok(())
        })
        .into_outcome();
    T::default()
}

/// [`run`] for the hot single-key natives (`put(long)`, `mightContain(long)`, ...), whose
/// arguments are all primitives: the body runs under `catch_unwind` alone and a JNI `Env` is
/// built only when there is something to throw. `with_env`'s per-call bookkeeping (attach
/// guard, thread-local nesting counter) cost more than the filter work of a query.
pub(crate) fn run_primitive<T, F>(env: EnvUnowned<'_>, body: F) -> T
where
    T: Default,
    F: FnOnce() -> JniResult<T>,
{
    let failure = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(value)) => return value,
        Ok(Err(error)) => error,
        Err(payload) => JniError::Panic(panic_message(payload)),
    };
    run(env, |_| Err(failure))
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

/// The Java class (internal name) and message for an error.
fn describe(error: JniError) -> (&'static JNIStr, String) {
    use crate::Error::{Allocation, Corrupt, Incompatible, InvalidArgument, TooLarge};
    let class = match &error {
        JniError::Core(InvalidArgument { .. } | Incompatible(_)) => {
            jni_str!("java/lang/IllegalArgumentException")
        }
        JniError::Core(Corrupt { .. }) => jni_str!("io/sparkbloom/CorruptFilterException"),
        // A request above the process's memory limit can never succeed: the filter is too
        // large for this process, which Spark must report or retry elsewhere, not treat as a
        // dying JVM. Only an allocator that refused below the limit is memory exhaustion.
        JniError::Core(Allocation { limit: Some(_), .. }) | JniError::ExceedsMemory(_) => {
            jni_str!("io/sparkbloom/FilterExceedsMemoryException")
        }
        JniError::Core(Allocation { limit: None, .. }) => jni_str!("java/lang/OutOfMemoryError"),
        JniError::Core(TooLarge { .. }) | JniError::TooLargeToDecode(_) => {
            jni_str!("io/sparkbloom/FilterTooLargeException")
        }
        JniError::Null(_) => jni_str!("java/lang/NullPointerException"),
        JniError::Closed => jni_str!("java/lang/IllegalStateException"),
        JniError::Jni(_) | JniError::Panic(_) => jni_str!("java/lang/RuntimeException"),
    };
    let message = match error {
        JniError::Core(e) => e.to_string(),
        JniError::TooLargeToDecode(message) | JniError::ExceedsMemory(message) => message,
        JniError::Null(name) => format!("{name} is null"),
        JniError::Closed => "BloomFilter is closed".to_owned(),
        JniError::Jni(e) => format!("sparkbloom JNI call failed: {e}"),
        JniError::Panic(message) => format!("Rust panic in sparkbloom: {message}"),
    };
    (class, message)
}

fn throw(env: &mut Env<'_>, error: JniError) {
    if env.exception_check() {
        // A JNI call failed because Java threw (OOM allocating an array, ...): keep that one.
        return;
    }
    let (class, message) = describe(error);
    // `find_class` resolves through the loader of the class whose native method is running,
    // so Java gets the `CorruptFilterException` it can catch even when Spark loads sparkbloom
    // in a child class loader (jni's `throw_new(name, ..)` would try the thread's context
    // loader first).
    let Ok(class) = env.find_class(class) else {
        return; // NoClassDefFoundError is pending
    };
    // `throw_new` returns Err(JavaException) once the exception is pending: that is success.
    let _ = env.throw_new(&class, JNIString::new(message));
}

exports! {
    /// Test hook (feature `jni-test-hooks`, never in a shipped library): panics with a
    /// runtime-formatted (`String`) message, so the JVM suite can check that a panic becomes a
    /// `RuntimeException` carrying the message and never crosses JNI.
    #[cfg(feature = "jni-test-hooks")]
    TestHooks.nPanicForTest(env, value: jni::sys::jlong) -> jni::sys::jlong {
        run(env, |_| -> JniResult<jni::sys::jlong> { panic!("test panic with value {value}") })
    }
}
