package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * The module jar without the core jar: {@code BloomFunctions.register} must fail at once with a
 * message naming the missing jar, not register and then throw {@code NoClassDefFoundError} at the
 * first query. The module's classes are loaded from their own directory by a loader whose parent
 * hides every {@code io.sparkbloom} class, as on a Spark classpath holding only the module jar.
 * With the core jar, registering (once or again) logs no "replaced a previously registered
 * function" warning, which Spark's function registry logs for every replacement.
 */
class RegistrationCheckTest extends WithSparkSession {
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

  private static final String REPLACED = "replaced a previously registered function";

  @Test
  void registeringLogsNoReplacedFunctionWarningTheFirstTimeOrAgain() {
    SparkSession session = spark.newSession();
    try (LogCapture log = new LogCapture()) {
      assumeTrue(log.seesSparkLogging(), LogCapture.BLIND);
      BloomFunctions.register(session);
      BloomFunctions.registerBuild(session, "user_filter", 1_000, 0.01);
      assertEquals(List.of(), log.containing(REPLACED), "registering in a new session");
      BloomFunctions.register(session);
      BloomFunctions.registerBuild(session, "user_filter", 1_000, 0.01);
      assertEquals(List.of(), log.containing(REPLACED), "registering again in the same session");
    }
    // what is registered is still the checked, typed functions
    Row row = session.sql("SELECT sparkbloom_might_contain(sparkbloom_build_array(array(1L, 2L), 0.01), 2L),"
        + " sparkbloom_might_contain(user_filter_bytes, 7L), sparkbloom_count(user_filter_bytes)"
        + " FROM (SELECT user_filter(id) AS user_filter_bytes FROM range(7, 8))").first();
    assertEquals(true, row.getBoolean(0));
    assertEquals(true, row.getBoolean(1));
    assertEquals(1L, row.getLong(2));
    Exception refused = assertThrows(Exception.class,
        () -> session.sql("SELECT sparkbloom_build(CAST(1.5 AS DOUBLE), 10, 0.01)").collect());
    assertTrue(String.valueOf(refused.getMessage()).contains("UNEXPECTED_INPUT_TYPE"),
        String.valueOf(refused.getMessage()));
  }

  @Test
  void replacingAnotherFunctionOfTheNameStillWarns() {
    SparkSession session = spark.newSession();
    // the user's own function under one of sparkbloom's names: Spark warns when it is replaced
    session.udf().register(BloomFunctions.BUILD_ARRAY,
        org.apache.spark.sql.functions.udf((org.apache.spark.sql.api.java.UDF0<Long>) () -> 1L,
            DataTypes.LongType));
    try (LogCapture log = new LogCapture()) {
      assumeTrue(log.seesSparkLogging(), LogCapture.BLIND);
      BloomFunctions.register(session);
      List<String> replaced = log.containing(REPLACED);
      assertEquals(1, replaced.size(), replaced.toString());
      assertTrue(replaced.get(0).contains(BloomFunctions.BUILD_ARRAY), replaced.get(0));
    }
  }

  /** Every log event of every logger, while open: an appender on the root logger's configuration. */
  private static final class LogCapture extends AbstractAppender implements AutoCloseable {
    static final String BLIND = "Spark's logging (SLF4J) does not reach log4j on this test classpath,"
        + " so no warning could be seen (scripts/test-pyspark-package.sh checks the log on PySpark)";

    private final List<String> messages = new ArrayList<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final LoggerConfig root = context.getConfiguration().getRootLogger();

    LogCapture() {
      super("registration-log-capture", null, null, true, Property.EMPTY_ARRAY);
      start();
      root.addAppender(this, Level.ALL, null);
      context.updateLoggers();
    }

    @Override
    public synchronized void append(LogEvent event) {
      messages.add(event.getLevel() + " " + event.getLoggerName() + ": "
          + event.getMessage().getFormattedMessage());
    }

    /** Whether a warning logged as Spark logs (through SLF4J, by the registry's logger) arrives. */
    boolean seesSparkLogging() {
      String probe = "log capture check " + System.nanoTime();
      org.slf4j.LoggerFactory.getLogger("org.apache.spark.sql.catalyst.analysis.SimpleFunctionRegistry")
          .warn(probe);
      boolean seen = !containing(probe).isEmpty();
      synchronized (this) {
        messages.removeIf(m -> m.contains(probe));
      }
      return seen;
    }

    synchronized List<String> containing(String text) {
      return messages.stream().filter(m -> m.contains(text)).collect(Collectors.toList());
    }

    @Override
    public void close() {
      root.removeAppender(getName());
      context.updateLoggers();
      stop();
    }
  }
}
