package io.sparkbloom.spark.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The report names the Guava that loaded: here the pom's guava.version, not Spark's copy. */
class GuavaOriginTest {
  private final String expected = System.getProperty("sparkbloom.guava.version");

  @Test
  void namesTheGuavaOnTheClasspath() {
    assertNotNull(expected, "the pom passes guava.version");
    assertEquals(expected, GuavaOrigin.version(com.google.common.hash.BloomFilter.class));
    assertEquals(expected + " (guava-" + expected + ".jar)", GuavaOrigin.ran());
  }

  @Test
  void namesSparksShadedCopyApart() {
    // Spark 4 carries its own Guava under org.sparkproject.guava, inside one of its jars
    String shaded = GuavaOrigin.sparkShaded();
    assertNotNull(shaded);
    assertTrue(shaded.startsWith("org.sparkproject.guava in spark-"), shaded);
  }
}
