package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The aggregation buffer and the batching helpers, without Spark. */
class FilterBuilderTest {
  private static byte[] direct(long n, double p, long[] items) {
    try (BloomFilter f = BloomFilter.create(n, p)) {
      f.putAll(items);
      return f.toByteArray();
    }
  }

  private static FilterBuilder javaRoundTrip(FilterBuilder b) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(b);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (FilterBuilder) in.readObject();
    }
  }

  @Test
  void buildEqualsDirectBuildAcrossBatchBoundaries() throws Exception {
    for (int count : new int[] {0, 1, 15, 16, 17, FilterBuilder.BATCH - 1, FilterBuilder.BATCH,
        FilterBuilder.BATCH + 1, 3 * FilterBuilder.BATCH + 5}) {
      long[] items = LongStream.range(0, count).map(i -> i * 0x9E3779B97F4A7C15L).toArray();
      FilterBuilder one = new FilterBuilder(20_000, 0.01);
      for (long v : items) {
        one.add(v);
      }
      assertArrayEquals(direct(20_000, 0.01, items), one.buildBytes(), "add, count " + count);
      FilterBuilder all = new FilterBuilder(20_000, 0.01).addAll(items);
      assertArrayEquals(direct(20_000, 0.01, items), all.buildBytes(), "addAll, count " + count);

      // split in two builders, serialized (both forms) and merged
      int half = count / 2;
      FilterBuilder a = new FilterBuilder(20_000, 0.01).addAll(Arrays.copyOfRange(items, 0, half));
      FilterBuilder b = new FilterBuilder(20_000, 0.01);
      for (long v : Arrays.copyOfRange(items, half, count)) {
        b.add(v);
      }
      FilterBuilder merged = javaRoundTrip(a).merge(javaRoundTrip(b));
      assertArrayEquals(direct(20_000, 0.01, items), merged.buildBytes(), "merged, count " + count);
    }
  }

  @Test
  void mergeRejectsDifferentSizingAndUnconfiguredIsNeutral() {
    FilterBuilder a = new FilterBuilder(100, 0.01).add(1);
    FilterBuilder b = new FilterBuilder(200, 0.01).add(2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.merge(b));
    assertTrue(e.getMessage().contains("n=100") && e.getMessage().contains("n=200"), e.getMessage());

    FilterBuilder zero = FilterBuilder.unconfigured();
    assertTrue(zero.merge(a) == a);
    assertTrue(a.merge(FilterBuilder.unconfigured()) == a);
    assertThrows(IllegalStateException.class, () -> FilterBuilder.unconfigured().build());
    assertThrows(IllegalArgumentException.class, () -> new FilterBuilder(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> new FilterBuilder(10, 1.0));
    assertThrows(IllegalArgumentException.class,
        () -> FilterBuilder.unconfigured().configure(10, 0.1).configure(11, 0.1));
  }

  @Test
  void batchedRetainAbsentIsLazyOrderedAndSkipsNulls() {
    try (BloomFilter f = BloomFilter.create(1000, 0.001)) {
      f.putAll(new long[] {2, 4, 6});
      List<Long> in = Arrays.asList(1L, 2L, null, 3L, 4L, 5L, 6L, 7L);
      Iterator<Long> it = new PerKeyFilters.BatchedRetainAbsent(in.iterator(), f, 3);
      List<Long> out = new java.util.ArrayList<>();
      it.forEachRemaining(out::add);
      assertEquals(List.of(1L, 3L, 5L, 7L), out);
      // a long stream in small batches gives the same as one call
      long[] many = LongStream.range(0, 10_000).toArray();
      List<Long> batched = new java.util.ArrayList<>();
      PerKeyFilters.retainAbsent(Arrays.stream(many).boxed().iterator(), f).forEachRemaining(batched::add);
      assertEquals(Arrays.stream(f.retainAbsent(many)).boxed().collect(Collectors.toList()), batched);
    }
  }
}
