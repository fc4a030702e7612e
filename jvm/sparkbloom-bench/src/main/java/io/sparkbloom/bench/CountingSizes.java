package io.sparkbloom.bench;

import io.sparkbloom.CountingBloomFilter;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.collections4.bloomfilter.ArrayCountingBloomFilter;
import org.apache.commons.collections4.bloomfilter.Shape;

/**
 * Prints the bytes of {@link CountingBench}'s filters holding n keys, as one JSON object:
 * in memory (sparkbloom: m/2 bytes of counters; Commons: its {@code int[m]} cells, 4·m bytes) and
 * serialized (sparkbloom: {@code toByteArray()}, FORMAT.md §10; Commons has no format of its
 * own: the smaller of its m cells as ints and its nonzero cells as (index, count) int pairs, what
 * a user could write with {@code processCells}).
 *
 * <p>Run: {@code java -cp target/benchmarks.jar io.sparkbloom.bench.CountingSizes}
 */
public final class CountingSizes {
  private CountingSizes() {}

  public static void main(String[] args) {
    StringBuilder json = new StringBuilder("{");
    for (String shape : new String[] {"n1e4_p1e-3", "n1e6_p1e-2"}) {
      double[] np = CountingBench.np(shape);
      long n = (long) np[0];
      long[] keys = Keys.longs(Keys.PRESENT, n, (int) n);
      try (CountingBloomFilter ours = CountingBloomFilter.create(n, np[1])) {
        ours.addAll(keys);
        int m = (int) ours.bitSize();
        CountingBench.Commons filler =
            new CountingBench.Commons(
                new ArrayCountingBloomFilter(Shape.fromKM(ours.numHashFunctions(), m)));
        filler.addAll(keys);
        ArrayCountingBloomFilter commons = filler.f;
        AtomicLong nonzero = new AtomicLong();
        commons.processCells((index, count) -> nonzero.incrementAndGet() > 0);
        long oursMemory = (m + 1) / 2;
        long commonsMemory = 4L * m;
        long oursSerialized = ours.toByteArray().length;
        long commonsSerialized = Math.min(4L * m, 8 * nonzero.get());
        if (json.length() > 1) {
          json.append(",\n ");
        }
        json.append(
            String.format(
                "\"%s\": {\"m\": %d, \"k\": %d, \"sparkbloom_memory\": %d, \"commons_memory\": %d,"
                    + " \"sparkbloom_serialized\": %d, \"commons_serialized\": %d,"
                    + " \"memory_ratio\": %.1f, \"serialized_ratio\": %.1f}",
                shape, m, ours.numHashFunctions(), oursMemory, commonsMemory, oursSerialized,
                commonsSerialized, (double) commonsMemory / oursMemory,
                (double) commonsSerialized / oursSerialized));
      }
    }
    System.out.println(json.append("}"));
  }
}
