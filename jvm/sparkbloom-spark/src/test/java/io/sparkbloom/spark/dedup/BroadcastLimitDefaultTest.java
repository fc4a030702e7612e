package io.sparkbloom.spark.dedup;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link BroadcastLimit#byDefault()}: a tenth of the driver's heap, at most the cap. */
class BroadcastLimitDefaultTest {
  @Test
  void theDefaultIsATenthOfTheHeapAtMostTheCap() {
    assertTrue(BroadcastLimit.byDefault() <= BroadcastLimit.DEFAULT_CAP);
    assertTrue(BroadcastLimit.byDefault() <= Runtime.getRuntime().maxMemory() / 10);
    assertTrue(BroadcastLimit.byDefault() > 0);
  }
}
