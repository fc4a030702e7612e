package io.sparkbloom.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.dedup.BatchedRetainAbsent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.reflect.ClassTag$;

/**
 * String item ids through every Spark path (RDD build per key and per record, dedup, the
 * DataFrame and SQL aggregates and queries), checked against real Guava: each filter must be bit
 * for bit the one Guava builds with {@code Funnels.stringFunnel(UTF_8)} from the same items, and
 * every dedup must keep exactly the candidates that Guava's filter says it has not seen. Items mix
 * ASCII, Latin-1, CJK, supplementary characters (surrogate pairs) and unpaired surrogates (which
 * UTF-8 encoding in Java, and so Guava, turns into {@code '?'}). Kryo with the registrator carries
 * the build buffers between stages.
 */
class StringItemsTest extends WithSparkSession {
  private static final long N = 1_000;
  private static final double P = 0.01;
  private static final String[] ALPHABET = {
    "a", "b", "z", "0", "9", "-", "/", "é", "ß", "ÿ", "Ж", "ж", "日", "本", "語", "€",
    "\uD83D\uDE00", "\uD800\uDF48", "\uDBFF\uDFFF", "\uD800", "\uDC00"
  };

  private Map<String, String[]> history;
  private Map<String, String[]> candidates;
  private Map<String, com.google.common.hash.BloomFilter<CharSequence>> guava;

  @Override
  String[] conf() {
    return SparkTests.KRYO_WITH_REGISTRATOR;
  }

  /** Strings of 1 to 12 characters from {@link #ALPHABET}, seeded. */
  private static String[] strings(SplittableRandom r, int count) {
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      StringBuilder b = new StringBuilder();
      int len = 1 + r.nextInt(12);
      for (int j = 0; j < len; j++) {
        b.append(ALPHABET[r.nextInt(ALPHABET.length)]);
      }
      out[i] = b.toString();
    }
    return out;
  }

  @BeforeAll
  void start() {
    BloomFunctions.register(spark);
    SplittableRandom r = new SplittableRandom(14);
    history = new HashMap<>();
    candidates = new HashMap<>();
    guava = new HashMap<>();
    for (int u = 0; u < 20; u++) {
      String user = "user-" + u;
      // user-0 has more than a build batch, so the buffers flush into a native filter mid-way
      String[] items = strings(r, u == 0 ? StringFilterBuilder.BATCH + 700 : 200 + r.nextInt(200));
      history.put(user, items);
      com.google.common.hash.BloomFilter<CharSequence> g = com.google.common.hash.BloomFilter.create(
          Funnels.stringFunnel(StandardCharsets.UTF_8), N, P);
      for (String s : items) {
        g.put(s);
      }
      guava.put(user, g);
      // half seen, half fresh (fresh strings may collide with seen ones: the oracle decides)
      String[] fresh = strings(r, 150);
      String[] c = new String[300];
      for (int i = 0; i < 150; i++) {
        c[2 * i] = items[r.nextInt(items.length)];
        c[2 * i + 1] = fresh[i];
      }
      candidates.put(user, c);
    }
  }

  private List<Tuple2<String, String>> pairs() {
    List<Tuple2<String, String>> out = new ArrayList<>();
    history.forEach((user, items) -> {
      for (String s : items) {
        out.add(new Tuple2<>(user, s));
      }
    });
    return out;
  }

  private static List<Tuple2<String, String[]>> records(Map<String, String[]> m) {
    List<Tuple2<String, String[]>> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(new Tuple2<>(k, v)));
    return out;
  }

  /** What Guava's filter of {@code user} keeps of {@code items}. */
  private String[] guavaKeeps(String user, String[] items) {
    com.google.common.hash.BloomFilter<CharSequence> g = guava.get(user);
    return g == null ? items : Arrays.stream(items).filter(s -> !g.mightContain(s)).toArray(String[]::new);
  }

  private void assertGuavaFilters(Map<String, BloomFilter> filters) {
    assertEquals(history.keySet(), filters.keySet());
    filters.forEach((user, f) -> {
      try (BloomFilter expected = BloomFilter.fromGuava(guava.get(user))) {
        assertEquals(expected, f, "filter of " + user + " differs from Guava's stringFunnel(UTF_8)");
      }
    });
  }

  @Test
  void buildPerKeyStringsEqualsGuavaAndDedupKeepsWhatGuavaKeeps() {
    JavaPairRDD<String, String> pairs = jsc.parallelizePairs(pairs(), 4);
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters.buildPerKeyStrings(pairs, PerKeyOptions.of(Sizing.fixed(N, P)).withPartitions(3)).cache();
    assertGuavaFilters(new HashMap<>(filters.collectAsMap()));

    Map<String, String[]> cands = new HashMap<>(candidates);
    cands.put("no-filter", new String[] {"x", "日本", "\uD83D\uDE00"});
    Map<String, String[]> kept = new HashMap<>(
        PerKeyFilters.dedup(filters, jsc.parallelizePairs(records(cands), 3)).collectAsMap());
    assertEquals(cands.keySet(), kept.keySet());
    int dropped = 0;
    for (Map.Entry<String, String[]> e : cands.entrySet()) {
      String[] expected = guavaKeeps(e.getKey(), e.getValue());
      assertArrayEquals(expected, kept.get(e.getKey()), e.getKey());
      dropped += e.getValue().length - expected.length;
    }
    assertTrue(dropped >= 150 * history.size(), "every seen candidate is dropped");
  }

  @Test
  void buildPerRecordStringsEqualsGuava() {
    JavaPairRDD<String, String[]> recs = jsc.parallelizePairs(records(history), 3);
    assertGuavaFilters(new HashMap<>(PerKeyFilters.buildPerRecord(recs, PerKeyOptions.of(Sizing.fixed(N, P))).collectAsMap()));
  }

  @Test
  void scalaRddOverloadsAndBatchedIterator() {
    JavaPairRDD<String, String> pairs = jsc.parallelizePairs(pairs(), 2);
    Map<String, BloomFilter> filters = new HashMap<>(JavaPairRDD.fromRDD(
        PerKeyFilters.buildPerKeyStrings(pairs, PerKeyOptions.of(Sizing.fixed(N, P))).rdd(),
        ClassTag$.MODULE$.apply(String.class), ClassTag$.MODULE$.apply(BloomFilter.class)).collectAsMap());
    assertGuavaFilters(filters);

    // the lazy batched iterator: more items than one batch, nulls skipped, order kept
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      items.addAll(Arrays.asList(candidates.get("user-0")));
      items.addAll(Arrays.asList(strings(new SplittableRandom(i), 2_000)));
      items.add(null);
    }
    List<String> kept = new ArrayList<>();
    Iterator<String> it = BatchedRetainAbsent.any(items.iterator(), filters.get("user-0"), PerKeyFilters.BATCH);
    it.forEachRemaining(kept::add);
    String[] nonNull = items.stream().filter(s -> s != null).toArray(String[]::new);
    assertArrayEquals(guavaKeeps("user-0", nonNull), kept.toArray(new String[0]));
  }

  private Dataset<Row> historyDf() {
    List<Row> rows = new ArrayList<>();
    for (Tuple2<String, String> t : pairs()) {
      rows.add(RowFactory.create(t._1(), t._2()));
    }
    rows.add(RowFactory.create("user-1", null)); // null items are ignored
    return spark.createDataFrame(rows, new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.StringType)).repartition(4);
  }

  private Dataset<Row> candidatesDf() {
    List<Row> rows = new ArrayList<>();
    candidates.forEach((user, items) -> rows.add(RowFactory.create(user, items)));
    return spark.createDataFrame(rows, new StructType()
        .add("user", DataTypes.StringType)
        .add("items", DataTypes.createArrayType(DataTypes.StringType)));
  }

  private static Map<String, BloomFilter> filtersOf(Dataset<Row> df) throws Exception {
    Map<String, BloomFilter> out = new HashMap<>();
    for (Row r : df.collectAsList()) {
      out.put(r.getString(0), BloomFilter.fromByteArray((byte[]) r.get(1)));
    }
    return out;
  }

  /**
   * {@code s} as it comes back from a DataFrame: Spark stores strings as UTF-8, so an unpaired
   * surrogate comes back as {@code '?'} (which hashes as the original: both are the byte 0x3F).
   */
  private static String viaUtf8(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  private void assertKeptLikeGuava(Dataset<Row> kept) {
    List<Row> rows = kept.collectAsList();
    assertEquals(candidates.size(), rows.size());
    for (Row r : rows) {
      List<String> got = r.getList(1);
      String[] expected = Arrays.stream(guavaKeeps(r.getString(0), candidates.get(r.getString(0))))
          .map(StringItemsTest::viaUtf8).toArray(String[]::new);
      assertArrayEquals(expected, got.toArray(new String[0]), r.getString(0));
    }
  }

  @Test
  void dataFrameBuildStringsAndRetainAbsentStringsMatchGuava() throws Exception {
    Dataset<Row> filters = historyDf().groupBy("user")
        .agg(BloomFunctions.buildStrings(col("item"), N, P).as("filter"));
    assertGuavaFilters(filtersOf(filters));
    assertKeptLikeGuava(candidatesDf().join(filters, "user")
        .select(col("user"), BloomFunctions.retainAbsentStrings(col("filter"), col("items"))));
  }

  @Test
  void sqlBuildStringMightContainAndRetainAbsentStringMatchGuava() throws Exception {
    historyDf().createOrReplaceTempView("string_history");
    candidatesDf().createOrReplaceTempView("string_candidates");
    Dataset<Row> filters = spark.sql("SELECT user, sparkbloom_build_string(item, " + N + ", " + P
        + ") AS filter FROM string_history GROUP BY user");
    filters.createOrReplaceTempView("string_filters");
    assertGuavaFilters(filtersOf(filters));
    assertKeptLikeGuava(spark.sql("SELECT c.user, sparkbloom_retain_absent_string(f.filter, c.items)"
        + " FROM string_candidates c JOIN string_filters f USING (user)"));

    // might_contain on string items answers as Guava's mightContain, row by row
    List<Row> answers = spark.sql("SELECT c.user, item, sparkbloom_might_contain(f.filter, item)"
        + " FROM string_candidates c JOIN string_filters f USING (user)"
        + " LATERAL VIEW explode(c.items) t AS item").collectAsList();
    assertEquals(candidates.size() * 300, answers.size());
    for (Row r : answers) {
      assertEquals(guava.get(r.getString(0)).mightContain(r.getString(1)), r.getBoolean(2), r.getString(1));
    }
    // a null filter keeps every candidate and has seen nothing
    Row none = spark.sql("SELECT sparkbloom_retain_absent_string(CAST(NULL AS BINARY), array('a', NULL, '日')),"
        + " sparkbloom_might_contain(CAST(NULL AS BINARY), 'a')").first();
    assertEquals(Arrays.asList("a", "日"), none.getList(0));
    assertFalse(none.getBoolean(1));
  }

  @Test
  void kryoWithRegistrationRequiredCarriesStringBuilders() {
    SerializerInstance ser = new KryoSerializer(new SparkConf(false)
        .set("spark.kryo.registrationRequired", "true")
        .set("spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName())).newInstance();
    StringFilterBuilder small = new StringFilterBuilder(N, P).addAll(candidates.get("user-3"));
    StringFilterBuilder big = new StringFilterBuilder(N, P).addAll(history.get("user-0"))
        .addAll(candidates.get("user-4"));
    for (StringFilterBuilder b : new StringFilterBuilder[] {small, big}) {
      StringFilterBuilder copy = ser.deserialize(
          ser.serialize(b, ClassTag$.MODULE$.apply(StringFilterBuilder.class)),
          ClassTag$.MODULE$.apply(StringFilterBuilder.class));
      assertEquals(b.toString(), copy.toString());
      assertArrayEquals(b.buildBytes(), copy.buildBytes());
    }
  }
}
