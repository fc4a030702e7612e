package io.sparkbloom.spark.dedup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkbloom.BloomFilter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** {@link BatchedRetainAbsent}: the candidates a filter has not seen, lazily, in batches. */
class BatchedRetainAbsentTest {
  @Test
  void batchedRetainAbsentIsLazyOrderedAndSkipsNulls() {
    try (BloomFilter f = BloomFilter.create(1000, 0.001)) {
      f.putAll(new long[] {2, 4, 6});
      List<Long> in = Arrays.asList(1L, 2L, null, 3L, 4L, 5L, 6L, 7L);
      Iterator<Long> it = BatchedRetainAbsent.longs(in.iterator(), f, 3);
      List<Long> out = new java.util.ArrayList<>();
      it.forEachRemaining(out::add);
      assertEquals(List.of(1L, 3L, 5L, 7L), out);
      // a long stream in small batches gives the same as one call
      long[] many = LongStream.range(0, 10_000).toArray();
      List<Long> batched = new java.util.ArrayList<>();
      BatchedRetainAbsent.any(Arrays.stream(many).boxed().iterator(), f, 4096)
          .forEachRemaining(batched::add);
      assertEquals(Arrays.stream(f.retainAbsent(many)).boxed().collect(Collectors.toList()), batched);
    }
  }
}
