package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module jar without the core jar: {@code BloomFunctions.register} must fail at once with a
 * message naming the missing jar, not register and then throw {@code NoClassDefFoundError} at the
 * first query. The module's classes are loaded from their own directory by a loader whose parent
 * hides every {@code io.sparkbloom} class, as on a Spark classpath holding only the module jar.
 */
class RegistrationCheckTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTests.session("registration-check");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Delegates to the test classpath for everything but sparkbloom's own classes. */
  private static final class HidingLoader extends ClassLoader {
    HidingLoader(ClassLoader parent) {
      super(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("io.sparkbloom.")) {
        throw new ClassNotFoundException(name);
      }
      return super.loadClass(name, resolve);
    }
  }

  @Test
  void registerWithoutTheCoreJarNamesIt() throws Exception {
    URL moduleClasses = BloomFunctions.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader moduleOnly = new URLClassLoader(new URL[] {moduleClasses},
        new HidingLoader(getClass().getClassLoader()))) {
      Class<?> functions = moduleOnly.loadClass(BloomFunctions.class.getName());
      assertTrue(functions.getClassLoader() == moduleOnly, "module classes come from the module dir");
      assertThrows(ClassNotFoundException.class, () -> moduleOnly.loadClass("io.sparkbloom.BloomFilter"));

      Method register = functions.getMethod("register", SparkSession.class);
      SparkSession session = spark.newSession(); // temporary functions are per session
      InvocationTargetException thrown =
          assertThrows(InvocationTargetException.class, () -> register.invoke(null, session));
      Throwable cause = thrown.getCause();
      assertTrue(cause instanceof IllegalStateException, "got " + cause);
      assertTrue(cause.getMessage().contains("core jar io.sparkbloom:sparkbloom"), cause.getMessage());
      // nothing was registered before the check failed
      assertFalse(session.catalog().functionExists(BloomFunctions.BUILD));
    }
  }

  @Test
  void registerWithTheCoreJarWorks() {
    SparkSession session = spark.newSession();
    BloomFunctions.register(session);
    assertTrue(session.catalog().functionExists(BloomFunctions.BUILD));
  }
}
