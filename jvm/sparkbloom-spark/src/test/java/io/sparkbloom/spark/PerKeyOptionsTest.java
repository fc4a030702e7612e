package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link PerKeyOptions} as a value, its argument checks, and the size of the facade it serves. */
class PerKeyOptionsTest {
  @Test
  void valueSemanticsAndDefaults() {
    PerKeyOptions d = PerKeyOptions.defaults();
    assertNull(d.sizing());
    assertEquals(0, d.partitions());
    PerKeyOptions o = PerKeyOptions.of(Sizing.perKeyCount(0.001)).withPartitions(8).withBroadcastMaxBytes(1024);
    assertEquals(Sizing.perKeyCount(0.001), o.sizing());
    assertEquals(8, o.partitions());
    assertEquals(o, PerKeyOptions.of(Sizing.perKeyCount(0.001)).withPartitions(8).withBroadcastMaxBytes(1024));
    assertEquals(o.hashCode(),
        PerKeyOptions.of(Sizing.perKeyCount(0.001)).withPartitions(8).withBroadcastMaxBytes(1024).hashCode());
    assertNotEquals(o, o.withPartitions(9));
    assertEquals(1024, o.broadcastMaxBytes(null), "a given limit needs no context");
    assertTrue(o.toString().contains("Sizing.perKeyCount(0.001)"), o.toString());
  }

  @Test
  void badArgumentsNameWhatIsWrong() {
    assertThrows(IllegalArgumentException.class, () -> PerKeyOptions.defaults().withPartitions(0));
    assertThrows(IllegalArgumentException.class, () -> PerKeyOptions.defaults().withBroadcastMaxBytes(-1));
    assertThrows(NullPointerException.class, () -> PerKeyOptions.of(null));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerKeyOptions.defaults().requireSizing("buildPerKey"));
    assertTrue(e.getMessage().contains("PerKeyFilters.buildPerKey needs a sizing"), e.getMessage());
  }

  @Test
  void theFacadeStaysSmall() {
    long methods = Arrays.stream(PerKeyFilters.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
        .map(Method::getName).count();
    assertTrue(methods <= 25, methods + " public methods");
  }
}
