//! The JNI bridge (`Java_io_sparkbloom_*` exports). The core never sees a JNIEnv.
