package io.sparkbloom.spark.dedup;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.ItemArrays;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import scala.Tuple2;

/**
 * The map-side join behind {@code PerKeyFilters.dedupBroadcast}: the filters are collected to the
 * driver and broadcast, and every candidate record is answered where it is, so the candidates
 * (usually far larger: 1,000 candidates are 8,000 bytes, a per-key filter of 200 items ~410)
 * never go through a shuffle.
 *
 * <p>The filters travel and stay in the broadcast as their FORMAT bytes, encoded once where they
 * are, not as live filters: a filter sized for 10,000 items holding 200 is 18 KB of bits but ~2 KB
 * of sparse bytes, so 10,000 of them broadcast as 20 MB instead of being encoded again for the
 * collect, decoded on the driver, encoded for the broadcast and held as 180 MB of native bits.
 * Each candidate record decodes its key's filter into a filter of its own (consecutive records of
 * one key share it), queries it and frees it at once on the task's thread, so a task holds one
 * decoded filter at a time. A key with several filters keeps only the candidates none of them has
 * seen (the same answers as OR-ing filters of one shape, and it works across shapes).
 */
public final class BroadcastDedup {
  private BroadcastDedup() {}

  public static <K, A> JavaPairRDD<K, A> dedup(JavaPairRDD<K, BloomFilter> filters,
      JavaPairRDD<K, A> candidates, long maxBytes) {
    // the user's filters are only read (and stay theirs: none is closed)
    return dedupEncoded(filters.mapValues(f -> f == null ? null : f.toByteArray()), candidates, maxBytes);
  }

  /**
   * {@link #dedup} of filters given as their FORMAT bytes (e.g. read from an objectFile as they
   * are), collecting at most {@code maxBytes} of them to the driver.
   *
   * @throws IllegalArgumentException ({@link BroadcastLimit.Exceeded}) once over {@code maxBytes}
   */
  public static <K, A> JavaPairRDD<K, A> dedupEncoded(JavaPairRDD<K, byte[]> filters,
      JavaPairRDD<K, A> candidates, long maxBytes) {
    Map<K, byte[][]> byKey = BoundedCollect.byKey(filters, maxBytes);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(candidates.context());
    Broadcast<Map<K, byte[][]>> shared = jsc.broadcast(byKey);
    // mapValues cannot see the key: map the pair, keep the candidates' partitioner
    return candidates.mapPartitionsToPair(records -> new Answers<>(records, shared.value()), true);
  }

  /** One task's candidate records, each answered by its key's filters decoded from bytes. */
  private static final class Answers<K, A> implements Iterator<Tuple2<K, A>> {
    private final Iterator<Tuple2<K, A>> records;
    private final Map<K, byte[][]> byKey;
    /** The last key's encoded filters and their decoded forms (null: not decoded or closed). */
    private byte[][] lastEncoded;
    private BloomFilter[] lastDecoded;

    Answers(Iterator<Tuple2<K, A>> records, Map<K, byte[][]> byKey) {
      this.records = records;
      this.byKey = byKey;
    }

    @Override
    public boolean hasNext() {
      if (records.hasNext()) {
        return true;
      }
      release();
      return false;
    }

    @Override
    public Tuple2<K, A> next() {
      Tuple2<K, A> t = records.next();
      byte[][] encoded = byKey.get(t._1());
      A kept = t._2();
      if (encoded == null || kept == null) {
        return t;
      }
      ItemArrays<A> type = ItemArrays.of(kept, HashJoinDedup.CANDIDATES);
      if (type.length(kept) == 0) {
        return t;
      }
      for (BloomFilter f : decoded(encoded, t._1())) {
        kept = type.length(kept) == 0 ? kept : type.retainAbsent(f, kept);
      }
      return new Tuple2<>(t._1(), kept);
    }

    /** The filters of {@code encoded}, decoded once per run of records of the same key. */
    private BloomFilter[] decoded(byte[][] encoded, K key) {
      if (encoded != lastEncoded) {
        release();
        BloomFilter[] fs = new BloomFilter[encoded.length];
        try {
          for (int i = 0; i < encoded.length; i++) {
            fs[i] = BloomFilter.fromByteArray(encoded[i]);
          }
        } catch (IOException e) {
          closeAll(fs);
          // bytes of a saved objectFile are checked here (CRC, every field): damage on disk
          throw new UncheckedIOException("dedupBroadcast: cannot decode the filter of key " + key, e);
        }
        lastEncoded = encoded;
        lastDecoded = fs;
      }
      return lastDecoded;
    }

    /** Frees the decoded filters now (on the thread that decoded them), not at the next GC. */
    private void release() {
      if (lastDecoded != null) {
        closeAll(lastDecoded);
        lastDecoded = null;
        lastEncoded = null;
      }
    }

    private static void closeAll(BloomFilter[] fs) {
      for (BloomFilter f : fs) {
        if (f != null) {
          f.close();
        }
      }
    }
  }

}
