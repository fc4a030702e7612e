package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Test;

/**
 * One broadcast filter queried by many concurrent tasks (Kryo, as broadcasts of big objects
 * usually are): tasks in one executor share the same filter object, so queries run on it from
 * several threads at once; results must equal the exact set-based answer.
 */
class BroadcastFilterTest extends WithSparkSession {
  @Override
  String[] conf() {
    return SparkTests.KRYO_WITH_REGISTRATOR;
  }

  @Test
  void broadcastFilterSharedByConcurrentTasks() {
    int seenCount = 200_000;
    double p = 0.01;
    SplittableRandom r = new SplittableRandom(42);
    long[] seen = new long[seenCount];
    Set<Long> seenSet = new HashSet<>();
    for (int i = 0; i < seenCount; i++) {
      seen[i] = r.nextLong();
      seenSet.add(seen[i]);
    }
    BloomFilter filter = BloomFilter.create(seenCount, p);
    filter.putAll(seen);

    // queries: every seen item once plus as many unseen ones, in 48 partitions
    List<Long> queries = new ArrayList<>();
    long unseen = 0;
    for (int i = 0; i < seenCount; i++) {
      queries.add(seen[i]);
      long v = r.nextLong();
      if (!seenSet.contains(v)) {
        queries.add(v);
        unseen++;
      }
    }
    Broadcast<BloomFilter> bc = jsc.broadcast(filter);
    JavaRDD<Long> rdd = jsc.parallelize(queries, 48);

    // 1. the batched helper
    List<Long> kept = PerKeyFilters.retainAbsent(rdd, bc).collect();
    for (long v : kept) {
      assertTrue(!seenSet.contains(v), "false negative: " + v);
    }
    long dropped = unseen - kept.size();
    double bound = p * unseen + 4 * Math.sqrt(unseen * p) + 1;
    assertTrue(dropped >= 0 && dropped <= bound, "dropped " + dropped + " of " + unseen);

    // 2. per-item queries from several threads inside each task as well, same answers as the driver
    List<String> perTask = rdd.mapPartitions(it -> {
      BloomFilter f = bc.value();
      List<Long> items = new ArrayList<>();
      it.forEachRemaining(items::add);
      long[] batch = items.stream().mapToLong(Long::longValue).toArray();
      boolean[] batched = f.mightContainAll(batch);
      int[] mismatches = new int[1];
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        int offset = t;
        threads[t] = new Thread(() -> {
          for (int i = offset; i < batch.length; i += threads.length) {
            if (f.mightContain(batch[i]) != batched[i]) {
              synchronized (mismatches) {
                mismatches[0]++;
              }
            }
          }
        });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      return List.of(System.identityHashCode(f) + ":" + mismatches[0]).iterator();
    }).collect();
    assertEquals(48, perTask.size());
    Set<String> objects = new HashSet<>();
    for (String s : perTask) {
      String[] parts = s.split(":");
      objects.add(parts[0]);
      assertEquals("0", parts[1], "concurrent mightContain disagrees with mightContainAll");
    }
    // local mode: all tasks of the executor read one shared deserialized copy
    assertEquals(1, objects.size(), "tasks should share the broadcast filter object");

    // 3. answers equal the driver's filter for every query
    List<Boolean> remote = rdd.map(v -> bc.value().mightContain(v.longValue())).collect();
    for (int i = 0; i < queries.size(); i++) {
      assertEquals(filter.mightContain(queries.get(i).longValue()), remote.get(i));
    }
    bc.destroy();
  }
}
