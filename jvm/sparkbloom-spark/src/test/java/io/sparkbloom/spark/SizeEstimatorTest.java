package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.util.SizeEstimator;
import org.junit.jupiter.api.Test;

/**
 * Spark's {@code SizeEstimator} (cache, shuffle and aggregation maps) walks every object a
 * value reaches. A filter must weigh itself alone, not every other live filter (which it would
 * if it held its {@code Cleaner.Cleanable}, linked to all other registrations).
 */
class SizeEstimatorTest {
  @Test
  void oneFilterDoesNotWeighEveryLiveFilter() {
    List<BloomFilter> live = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      live.add(BloomFilter.create(10_000, 0.001));
    }
    long one = SizeEstimator.estimate(live.get(0));
    // The Java side is a few small objects; the bits are native and invisible to the estimate.
    assertTrue(one < 1_024, "SizeEstimator weighs one filter at " + one + " bytes");
    live.forEach(BloomFilter::close);
  }
}
