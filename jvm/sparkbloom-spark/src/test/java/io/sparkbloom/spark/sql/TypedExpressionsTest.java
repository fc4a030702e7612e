package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.Sizing;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@code sparkbloom_build_per_key} and {@code sparkbloom_retain_absent} as typed Catalyst
 * expressions ({@link BuildAggregate}, {@link RetainAbsentExpression}), in a session with
 * the extension ("extension") and in one where {@code BloomFunctions.register} replaced them
 * ("register"): the plans hold the typed expressions, their answers are the core library's, the
 * filters' bytes are {@code Sizing.perKeyCount(p).build(items)}'s (also when the aggregate falls
 * back to sort-based aggregation), and nulls, empty arrays and narrower integer types are
 * handled as documented.
 */
class TypedExpressionsTest extends WithBothRegistrations {
  private static final double FPP = 0.01;
  private static final int USERS = 300;

  TypedExpressionsTest() {
    super(3);
  }

  /** Per user: the history items. */
  private final Map<String, long[]> history = new HashMap<>();

  @BeforeAll
  void start() {
    Random r = new Random(7);
    List<Row> rows = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      String user = "u" + u;
      long[] items = new long[1 + r.nextInt(60)];
      for (int i = 0; i < items.length; i++) {
        items[i] = r.nextInt(4) == 0 ? items[r.nextInt(i + 1)] : r.nextLong(); // some repeats
        rows.add(RowFactory.create(user, items[i]));
      }
      rows.add(RowFactory.create(user, null)); // null items are skipped
      history.put(user, items);
    }
    StructType schema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, true);
    viewInBoth("history", rows, schema);
  }

  private static byte[] expectedFilter(long[] items) {
    try (BloomFilter f = Sizing.perKeyCount(FPP).build(items.clone())) {
      return f.toByteArray();
    }
  }

  @EachRegistration
  void buildPerKeyBytesAreTheCoreBuildsEvenAfterTheSortFallback(String which) {
    SparkSession spark = session(which);
    // 2: nearly every task falls back to sort-based aggregation; 100000: none does
    for (String threshold : List.of("2", "100000")) {
      spark.conf().set("spark.sql.objectHashAggregate.sortBased.fallbackThreshold", threshold);
      Dataset<Row> filters = spark.sql("SELECT user, sparkbloom_build_per_key(item, " + FPP
          + ") AS filter FROM history GROUP BY user");
      String plan = filters.queryExecution().executedPlan().toString();
      assertTrue(plan.contains("ObjectHashAggregate") && plan.contains(BloomFunctions.BUILD_PER_KEY), plan);
      assertFalse(plan.contains("ScalaAggregator") || plan.contains("scalaaggregator"), plan);
      List<Row> rows = filters.collectAsList();
      assertEquals(USERS, rows.size());
      for (Row row : rows) {
        assertArrayEquals(expectedFilter(history.get(row.getString(0))), (byte[]) row.get(1), row.getString(0));
      }
    }
    spark.conf().unset("spark.sql.objectHashAggregate.sortBased.fallbackThreshold");
  }

  @EachRegistration
  void buildPerKeyTakesNarrowIntegersAndComputedP(String which) {
    SparkSession spark = session(which);
    // int and tinyint items hash as their long values; p from a non-constant expression
    Row row = spark.sql("SELECT sparkbloom_build_per_key(CAST(id AS INT), CAST(0.01 + 0 * id AS DOUBLE)),"
        + " sparkbloom_build_per_key(CAST(id % 100 AS TINYINT), 0.01) FROM range(100)").first();
    long[] items = new long[100];
    Arrays.setAll(items, i -> i);
    assertArrayEquals(expectedFilter(items), (byte[]) row.get(0));
    assertArrayEquals(expectedFilter(items), (byte[]) row.get(1));
    // a global aggregate over no rows: null; only null items: an empty filter of the sizing
    assertNull(spark.sql("SELECT sparkbloom_build_per_key(id, 0.01) FROM range(0)").first().get(0));
    assertArrayEquals(expectedFilter(new long[0]),
        (byte[]) spark.sql("SELECT sparkbloom_build_per_key(CAST(NULL AS BIGINT), 0.01) FROM range(3)").first().get(0));
  }

  @EachRegistration
  void buildPerKeyRefusesNullOrMixedP(String which) {
    SparkSession spark = session(which);
    Exception nullP = assertThrows(Exception.class, () -> spark.sql(
        "SELECT sparkbloom_build_per_key(id, IF(id = 5, NULL, 0.01)) FROM range(10)").collect());
    assertTrue(SqlCatalogueTest.rootMessage(nullP).contains(BloomFunctions.BUILD_PER_KEY + "(item, p): p must not be null"),
        SqlCatalogueTest.rootMessage(nullP));
    Exception mixed = assertThrows(Exception.class, () -> spark.sql(
        "SELECT sparkbloom_build_per_key(id, IF(id < 5, 0.01, 0.02)) FROM range(10)").collect());
    assertTrue(SqlCatalogueTest.rootMessage(mixed).contains(BloomFunctions.BUILD_PER_KEY
        + "(item, p): p must be the same for every row of a group"), SqlCatalogueTest.rootMessage(mixed));
  }

  /**
   * Millions of rows of ten distinct items in one group, the rows spread over partitions (so the
   * partial buffers are merged too): the bytes of the filter of the ten items alone. The buffers
   * keep the distinct items only ({@link PerKeyItemsTest} checks their size).
   */
  @EachRegistration
  void buildPerKeyOfManyRowsOfFewItemsIsTheFilterOfTheDistinctItems(String which) {
    Row row = session(which).sql("SELECT sparkbloom_build_per_key(id % 10, " + FPP + "),"
        + " sparkbloom_build_per_key(id % 10, " + FPP + ") FILTER (WHERE id < 20)"
        + " FROM range(0, 4000000, 1, 4)").first();
    long[] ten = new long[10];
    Arrays.setAll(ten, i -> i);
    assertArrayEquals(expectedFilter(ten), (byte[]) row.get(0));
    assertArrayEquals(expectedFilter(ten), (byte[]) row.get(1));
  }

  @EachRegistrationAndEvaluation
  void retainAbsentAnswersAreTheCoreAnswers(String which) throws Exception {
    inEvaluation(which, spark -> {
      spark.sql("SELECT user, sparkbloom_build_per_key(item, " + FPP + ") AS filter FROM history"
          + " GROUP BY user").createOrReplaceTempView("filters");
      // candidates: the history itself (all seen) and the history plus one (mostly unseen)
      Dataset<Row> kept = spark.sql("SELECT h.user, sparkbloom_retain_absent(f.filter, h.items) AS seen,"
          + " sparkbloom_retain_absent(f.filter, transform(h.items, x -> x + 1)) AS unseen, h.items"
          + " FROM (SELECT user, collect_list(item) AS items FROM history GROUP BY user) h"
          + " JOIN filters f ON h.user = f.user");
      String plan = kept.queryExecution().executedPlan().toString();
      assertTrue(plan.contains(BloomFunctions.RETAIN_ABSENT), plan);
      assertFalse(plan.contains("UDF"), plan);
      List<Row> rows = kept.collectAsList();
      assertEquals(USERS, rows.size());
      for (Row row : rows) {
        long[] items = history.get(row.getString(0));
        assertEquals(List.of(), row.getList(1), "no false negatives");
        // in the order collect_list gathered them
        long[] plusOne = toLongs(row.getList(3)).clone();
        Arrays.setAll(plusOne, i -> plusOne[i] + 1);
        try (BloomFilter f = BloomFilter.fromByteArray(expectedFilter(items))) {
          assertArrayEquals(f.retainAbsent(plusOne), toLongs(row.getList(2)));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }
    });
  }

  @EachRegistration
  void retainAbsentNullsEmptyArraysAndNarrowTypes(String which) {
    SparkSession spark = session(which);
    String filter = "(SELECT sparkbloom_build_per_key(id, 0.01) FROM range(10))";
    Row row = spark.sql("SELECT"
        + " sparkbloom_retain_absent(" + filter + ", array(3L, NULL, 42L, 7L, NULL)),"   // nulls dropped
        + " sparkbloom_retain_absent(" + filter + ", array(CAST(3 AS INT), 42, 8, 99)),"  // int
        + " sparkbloom_retain_absent(" + filter + ", array(CAST(3 AS SMALLINT), CAST(50 AS SMALLINT))),"
        + " sparkbloom_retain_absent(" + filter + ", array(CAST(3 AS TINYINT), CAST(60 AS TINYINT))),"
        + " sparkbloom_retain_absent(" + filter + ", CAST(array() AS ARRAY<BIGINT>)),"    // empty
        + " sparkbloom_retain_absent(CAST(NULL AS BINARY), array(3L, NULL, 5L)),"        // keeps all
        + " sparkbloom_retain_absent(" + filter + ", CAST(NULL AS ARRAY<BIGINT>)),"       // null
        + " sparkbloom_retain_absent(" + filter + ", array(NULL, NULL))").first();
    long[] ten = new long[10];
    Arrays.setAll(ten, i -> i);
    try (BloomFilter f = BloomFilter.fromByteArray(expectedFilter(ten))) {
      assertArrayEquals(f.retainAbsent(new long[] {3, 42, 7}), toLongs(row.getList(0)));
      assertArrayEquals(f.retainAbsent(new long[] {3, 42, 8, 99}), toLongs(row.getList(1)));
      assertArrayEquals(f.retainAbsent(new long[] {3, 50}), toLongs(row.getList(2)));
      assertArrayEquals(f.retainAbsent(new long[] {3, 60}), toLongs(row.getList(3)));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertEquals(List.of(), row.getList(4));
    assertEquals(List.of(3L, 5L), row.getList(5));
    assertTrue(row.isNullAt(6));
    assertEquals(List.of(), row.getList(7));
  }

  @EachRegistration
  void retainAbsentNamesACorruptFilter(String which) {
    Exception e = assertThrows(Exception.class, () -> session(which).sql(
        "SELECT sparkbloom_retain_absent(X'00010203', array(1L, 2L))").collect());
    assertTrue(SqlCatalogueTest.rootMessage(e).contains(BloomFunctions.RETAIN_ABSENT + ": not a sparkbloom filter"),
        SqlCatalogueTest.rootMessage(e));
  }

  private static long[] toLongs(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }
}
