package io.sparkbloom.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/** The DataFrame / SQL functions, incl. a Parquet round trip of the filter column. */
class BloomFunctionsTest extends WithSparkSession {
  private List<Tuple2<String, long[]>> history;
  private List<Tuple2<String, long[]>> candidates;
  private Dataset<Row> historyDf;
  private Dataset<Row> candidatesDf;

  @BeforeAll
  void start() {
    BloomFunctions.register(spark);
    history = SparkTests.history(60, 300);
    candidates = SparkTests.candidates(history, 300, 5);

    List<Row> rows = new ArrayList<>();
    for (Tuple2<String, long[]> h : history) {
      for (long v : h._2()) {
        rows.add(RowFactory.create(h._1(), v));
      }
    }
    rows.add(RowFactory.create("0", null)); // null items are ignored
    historyDf = spark.createDataFrame(rows, new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.LongType)).repartition(4);
    historyDf.createOrReplaceTempView("history");

    List<Row> cRows = new ArrayList<>();
    for (Tuple2<String, long[]> c : candidates) {
      List<Long> items = new ArrayList<>();
      for (long v : c._2()) {
        items.add(v);
      }
      cRows.add(RowFactory.create(c._1(), items.toArray(new Long[0])));
    }
    candidatesDf = spark.createDataFrame(cRows, new StructType()
        .add("user", DataTypes.StringType)
        .add("items", DataTypes.createArrayType(DataTypes.LongType)));
    candidatesDf.createOrReplaceTempView("candidates");
  }

  private Map<String, long[]> keptByUser(Dataset<Row> df) {
    Map<String, long[]> out = new HashMap<>();
    for (Row r : df.collectAsList()) {
      List<Long> l = r.getList(1);
      out.put(r.getString(0), l.stream().mapToLong(Long::longValue).toArray());
    }
    return out;
  }

  @Test
  void dataFrameApiBuildAndRetainAbsentMatchExactDedup() {
    Dataset<Row> filters = historyDf.groupBy("user")
        .agg(BloomFunctions.build(col("item"), 10_000, 0.001).as("filter"));
    assertEquals(DataTypes.BinaryType, filters.schema().apply("filter").dataType());
    Dataset<Row> kept = candidatesDf.join(filters, candidatesDf.col("user").equalTo(filters.col("user")), "left")
        .select(candidatesDf.col("user"), BloomFunctions.retainAbsent(col("filter"), col("items")).as("items"));
    SparkTests.Check c = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), keptByUser(kept));
    assertEquals(60 * 150, c.seenCandidates);
    SparkTests.assertFppWithin(c, 0.001);
  }

  /** The aggregate's bytes are exactly the filter a direct build gives (FORMAT.md bytes). */
  @Test
  void aggregateBytesEqualDirectBuild() throws Exception {
    Map<String, byte[]> built = new HashMap<>();
    for (Row r : historyDf.groupBy("user").agg(BloomFunctions.build(col("item"), 1000, 0.01)).collectAsList()) {
      built.put(r.getString(0), (byte[]) r.get(1));
    }
    for (Tuple2<String, long[]> h : history) {
      try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
        f.putAll(h._2());
        assertArrayEquals(f.toByteArray(), built.get(h._1()), "user " + h._1());
      }
    }
  }

  @Test
  void sqlFunctionsAfterRegister() {
    spark.sql("SELECT user, sparkbloom_build(item, 10000, 0.001) AS filter FROM history GROUP BY user")
        .createOrReplaceTempView("filters");
    Dataset<Row> kept = spark.sql(
        "SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS items "
            + "FROM candidates c LEFT JOIN filters f ON c.user = f.user");
    SparkTests.Check c = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), keptByUser(kept));
    SparkTests.assertFppWithin(c, 0.001);

    // might_contain: every history item is (maybe) contained; null filter means not seen
    long missing = spark.sql(
        "SELECT count(*) FROM history h JOIN filters f ON h.user = f.user "
            + "WHERE h.item IS NOT NULL AND NOT sparkbloom_might_contain(f.filter, h.item)").first().getLong(0);
    assertEquals(0, missing);
    Row nulls = spark.sql("SELECT sparkbloom_might_contain(CAST(NULL AS BINARY), 5L), "
        + "sparkbloom_might_contain(filter, CAST(NULL AS BIGINT)), "
        + "sparkbloom_retain_absent(CAST(NULL AS BINARY), array(1L, 2L)), "
        + "sparkbloom_retain_absent(filter, CAST(NULL AS ARRAY<BIGINT>)) FROM filters LIMIT 1").first();
    assertFalse(nulls.getBoolean(0));
    assertTrue(nulls.isNullAt(1));
    assertEquals(List.of(1L, 2L), nulls.getList(2));
    assertTrue(nulls.isNullAt(3));
  }

  @Test
  void sqlBuildAcceptsIntLiteralsAndRejectsMixedSizing() {
    // INT and DECIMAL literals are cast to BIGINT / DOUBLE
    Row r = spark.sql("SELECT sparkbloom_build(item, 500, 0.05) FROM history WHERE user = '1'").first();
    try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r.get(0));
        BloomFilter direct = BloomFilter.create(500, 0.05)) {
      assertEquals(direct.bitSize(), f.bitSize());
      assertEquals(direct.numHashFunctions(), f.numHashFunctions());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    // an empty input gives NULL (no sizing seen)
    assertTrue(spark.sql("SELECT sparkbloom_build(item, 500, 0.05) FROM history WHERE false").first().isNullAt(0));
    Exception e = assertThrows(Exception.class, () -> spark.sql(
        "SELECT sparkbloom_build(item, IF(item % 2 = 0, 100, 200), 0.01) FROM history").collect());
    assertTrue(String.valueOf(rootCause(e).getMessage()).contains("n and p must be the same"),
        rootCause(e).toString());
  }

  @Test
  void registerBuildGivesAOneArgumentAggregate() {
    BloomFunctions.registerBuild(spark, "user_filter", 10_000, 0.001);
    Dataset<Row> a = spark.sql("SELECT user, user_filter(item) AS f FROM history GROUP BY user ORDER BY user");
    Dataset<Row> b = spark.sql(
        "SELECT user, sparkbloom_build(item, 10000, 0.001) AS f FROM history GROUP BY user ORDER BY user");
    List<Row> ra = a.collectAsList();
    List<Row> rb = b.collectAsList();
    assertEquals(ra.size(), rb.size());
    for (int i = 0; i < ra.size(); i++) {
      assertArrayEquals((byte[]) rb.get(i).get(1), (byte[]) ra.get(i).get(1));
    }
  }

  /** A filter column written to Parquet reads back byte for byte and answers the same. */
  @Test
  void parquetRoundTrip(@TempDir Path tmp) {
    Dataset<Row> filters = historyDf.groupBy("user")
        .agg(BloomFunctions.build(col("item"), 10_000, 0.001).as("filter"));
    String path = tmp.resolve("filters.parquet").toString();
    filters.write().parquet(path);
    Dataset<Row> back = spark.read().parquet(path);
    assertEquals(DataTypes.BinaryType, back.schema().apply("filter").dataType());

    Map<String, byte[]> before = new HashMap<>();
    for (Row r : filters.collectAsList()) {
      before.put(r.getString(0), (byte[]) r.get(1));
    }
    for (Row r : back.collectAsList()) {
      assertArrayEquals(before.get(r.getString(0)), (byte[]) r.get(1));
    }
    Dataset<Row> keptBack = candidatesDf.join(back, candidatesDf.col("user").equalTo(back.col("user")), "left")
        .select(candidatesDf.col("user"), BloomFunctions.retainAbsent(back.col("filter"), col("items")));
    Dataset<Row> keptBefore = candidatesDf.join(filters, candidatesDf.col("user").equalTo(filters.col("user")), "left")
        .select(candidatesDf.col("user"), BloomFunctions.retainAbsent(filters.col("filter"), col("items")));
    Map<String, long[]> a = keptByUser(keptBack);
    Map<String, long[]> b = keptByUser(keptBefore);
    assertEquals(b.keySet(), a.keySet());
    for (String user : a.keySet()) {
      assertArrayEquals(b.get(user), a.get(user), "user " + user);
    }
    SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), a);

    // and a filter read from Parquet is a normal BloomFilter for the Java API
    Row r0 = back.where(col("user").equalTo(lit("3"))).first();
    try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r0.get(1))) {
      for (long v : SparkTests.byKey(history).get("3")) {
        assertTrue(f.mightContain(v));
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Many groups force ObjectHashAggregate's sort-based fallback, which serializes buffers. */
  @Test
  void manyGroupsAndBigGroupsSerializeBuffers() {
    List<Row> rows = new ArrayList<>();
    for (int g = 0; g < 400; g++) {
      int count = g == 0 ? FilterBuilder.BATCH * 2 + 7 : 3;
      for (int i = 0; i < count; i++) {
        rows.add(RowFactory.create(g, (long) g * 1_000_003L + i));
      }
    }
    Dataset<Row> df = spark.createDataFrame(rows, new StructType()
        .add("g", DataTypes.IntegerType).add("item", DataTypes.LongType)).repartition(3);
    Dataset<Row> built = df.groupBy("g").agg(BloomFunctions.build(col("item"), 10_000, 0.01).as("f"),
        collect_list("item").as("items"));
    long wrong = 0;
    for (Row r : built.collectAsList()) {
      try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r.get(1))) {
        for (Object v : r.getList(2)) {
          if (!f.mightContain((Long) v)) {
            wrong++;
          }
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
    assertEquals(400, built.count());
    assertEquals(0, wrong);
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
