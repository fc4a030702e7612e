package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * {@link PerKeyFilters}' null policy, the same in the join ({@code dedup}) and the broadcast
 * ({@code dedupBroadcast}) plans: a null key is a key, a null item is no item, a null item array
 * builds an empty filter, null candidates stay null, a null filter is no filter wherever it comes
 * among a key's filters.
 */
class NullPolicyTest extends WithSparkSession {
  /** Both plans' answers, which must be equal: {@code (key, candidates)} as a map of lists. */
  private Map<String, List<long[]>> bothPlans(List<Tuple2<String, BloomFilter>> filters,
      List<Tuple2<String, long[]>> candidates) {
    JavaPairRDD<String, BloomFilter> f = jsc.parallelizePairs(filters, 2);
    JavaPairRDD<String, long[]> c = jsc.parallelizePairs(candidates, 2);
    Map<String, List<long[]>> join = group(PerKeyFilters.dedup(f, c).collect());
    Map<String, List<long[]>> broadcast = group(PerKeyFilters.dedupBroadcast(f, c, PerKeyOptions.defaults()).collect());
    assertEquals(join.keySet(), broadcast.keySet());
    join.forEach((k, v) -> {
      assertEquals(v.size(), broadcast.get(k).size(), "key " + k);
      for (int i = 0; i < v.size(); i++) {
        assertArrayEquals(v.get(i), broadcast.get(k).get(i), "key " + k);
      }
    });
    return join;
  }

  private static Map<String, List<long[]>> group(List<Tuple2<String, long[]>> records) {
    Map<String, List<long[]>> out = new HashMap<>();
    for (Tuple2<String, long[]> t : records) {
      out.computeIfAbsent(t._1(), k -> new ArrayList<>()).add(t._2());
    }
    return out;
  }

  private static BloomFilter filterOf(long... items) {
    BloomFilter f = BloomFilter.create(100, 0.001);
    f.putAll(items);
    return f;
  }

  @Test
  void nullCandidatesStayNullInBothPlans() {
    Map<String, List<long[]>> kept = bothPlans(List.of(new Tuple2<>("u", filterOf(1))),
        List.of(new Tuple2<>("u", null), new Tuple2<>("u", new long[] {1, 2})));
    List<long[]> u = kept.get("u");
    assertEquals(2, u.size());
    assertTrue(u.stream().anyMatch(a -> a == null), "null candidates come back null");
    assertTrue(u.stream().anyMatch(a -> a != null && Arrays.equals(a, new long[] {2})));
  }

  @Test
  void aNullFilterIsNoFilterInEitherOrder() {
    BloomFilter f = filterOf(1);
    List<Tuple2<String, long[]>> candidates = List.of(
        new Tuple2<>("a", new long[] {1, 2}), new Tuple2<>("b", new long[] {1, 2}),
        new Tuple2<>("c", new long[] {1, 2}));
    Map<String, List<long[]>> kept = bothPlans(List.of(
        new Tuple2<>("a", f), new Tuple2<>("a", null),
        new Tuple2<>("b", null), new Tuple2<>("b", f),
        new Tuple2<>("c", null)), candidates);
    assertArrayEquals(new long[] {2}, kept.get("a").get(0));
    assertArrayEquals(new long[] {2}, kept.get("b").get(0));
    assertArrayEquals(new long[] {1, 2}, kept.get("c").get(0), "only a null filter: nothing seen");
  }

  @Test
  void aNullKeyIsAKey() {
    Map<String, List<long[]>> kept = bothPlans(
        List.of(new Tuple2<>(null, filterOf(1)), new Tuple2<>("u", filterOf(2))),
        List.of(new Tuple2<>(null, new long[] {1, 2}), new Tuple2<>("u", new long[] {1, 2})));
    assertArrayEquals(new long[] {2}, kept.get(null).get(0));
    assertArrayEquals(new long[] {1}, kept.get("u").get(0));
  }

  @Test
  void nullItemsAreSkippedWhenBuilding() {
    List<Tuple2<String, Long>> pairs = new ArrayList<>();
    pairs.add(new Tuple2<>("u", 1L));
    pairs.add(new Tuple2<>("u", null));
    pairs.add(new Tuple2<>("v", null));
    JavaPairRDD<String, Long> rdd = jsc.parallelizePairs(pairs, 2);
    for (Map<String, BloomFilter> built : List.of(
        PerKeyFilters.buildPerKey(rdd, 100, 0.01).collectAsMap(),
        PerKeyFilters.buildPerKey(rdd, PerKeyOptions.of(Sizing.perKeyCount(0.01))).collectAsMap(),
        PerKeyFilters.buildPerKey(rdd.rdd(), PerKeyOptions.of(Sizing.fixed(100, 0.01))).toJavaRDD()
            .mapToPair(t -> t).collectAsMap())) {
      assertTrue(built.get("u").mightContain(1L));
      assertEquals(0, built.get("v").bitCount(), "a key of null items only: an empty filter");
    }
    List<Tuple2<String, String>> strings = new ArrayList<>();
    strings.add(new Tuple2<>("u", "a"));
    strings.add(new Tuple2<>("u", null));
    Map<String, BloomFilter> s =
        PerKeyFilters.buildPerKeyStrings(jsc.parallelizePairs(strings, 2), PerKeyOptions.of(Sizing.fixed(100, 0.01))).collectAsMap();
    assertTrue(s.get("u").mightContain("a"));

    List<Tuple2<String, Long>> candidates = new ArrayList<>();
    candidates.add(new Tuple2<>("u", 1L));
    candidates.add(new Tuple2<>("u", null));
    candidates.add(new Tuple2<>("u", 5L));
    List<Tuple2<String, Long>> kept = PerKeyFilters.dedupPairs(PerKeyFilters.buildPerKey(rdd, 100, 0.01), jsc.parallelizePairs(candidates, 2)).collect();
    assertEquals(List.of(new Tuple2<>("u", 5L)), kept);
  }

  @Test
  void nullArraysBuildEmptyFiltersAndNullStringsAreNoItems() {
    List<Tuple2<String, long[]>> records = new ArrayList<>();
    records.add(new Tuple2<>("u", null));
    records.add(new Tuple2<>("v", new long[] {1}));
    JavaPairRDD<String, long[]> rdd = jsc.parallelizePairs(records, 2);
    for (Map<String, BloomFilter> built : List.of(
        PerKeyFilters.buildPerRecord(rdd, PerKeyOptions.of(Sizing.fixed(100, 0.01))).collectAsMap(),
        PerKeyFilters.buildPerRecord(rdd, PerKeyOptions.of(Sizing.perKeyCount(0.01))).collectAsMap(),
        PerKeyFilters.buildPerKeyFromArrays(rdd, PerKeyOptions.of(Sizing.fixed(100, 0.01))).collectAsMap(),
        PerKeyFilters.buildPerKeyFromArrays(rdd, PerKeyOptions.of(Sizing.perKeyCount(0.01))).collectAsMap())) {
      assertEquals(0, built.get("u").bitCount());
      assertTrue(built.get("v").mightContain(1L));
    }
    List<Tuple2<String, String[]>> strings = new ArrayList<>();
    strings.add(new Tuple2<>("u", new String[] {"a", null, "b"}));
    Map<String, BloomFilter> s = PerKeyFilters.buildPerRecord(jsc.parallelizePairs(strings, 1), PerKeyOptions.of(Sizing.fixed(100, 0.01))).collectAsMap();
    assertTrue(s.get("u").mightContain("a") && s.get("u").mightContain("b"));

    List<Tuple2<String, String[]>> candidates = new ArrayList<>();
    candidates.add(new Tuple2<>("u", new String[] {"a", null, "c"}));
    candidates.add(new Tuple2<>("v", null));
    Map<String, String[]> kept = PerKeyFilters.dedup(PerKeyFilters.buildPerRecord(jsc.parallelizePairs(strings, 1), PerKeyOptions.of(Sizing.fixed(100, 0.01))), jsc.parallelizePairs(candidates, 2)).collectAsMap();
    assertArrayEquals(new String[] {"c"}, kept.get("u"), "the null element dropped, the seen one too");
    assertNull(kept.get("v"));
    assertTrue(kept.containsKey("v"));
    assertFalse(kept.get("u").length == 3);
  }
}
