//! The export behind `io.sparkbloom.NativeLibrary.nBridgeVersion`: the loader calls it right
//! after loading a library, so a `libsparkbloom.so` built without the `jni` feature (which
//! loads, but exports no `Java_*` symbol) is named as such at once.

use jni::sys::jint;

/// The version of the JNI bridge's contract with the Java classes; the Java side checks it.
const BRIDGE_VERSION: jint = 1;

exports! {
    NativeLibrary.nBridgeVersion(_env) -> jint {
        BRIDGE_VERSION
    }
}
