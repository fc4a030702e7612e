//! The export behind `io.sparkbloom.NativeLibrary.nBridgeVersion`: the loader calls it right
//! after loading a library, so a `libsparkbloom.so` built without the `jni` feature (which
//! loads, but exports no `Java_*` symbol) is named as such at once.

use jni::objects::JClass;
use jni::sys::jint;

/// The version of the JNI bridge's contract with the Java classes; the Java side checks it.
const BRIDGE_VERSION: jint = 1;

#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_NativeLibrary_nBridgeVersion(
    _env: jni::EnvUnowned<'_>,
    _class: JClass<'_>,
) -> jint {
    BRIDGE_VERSION
}
