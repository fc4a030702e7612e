package io.sparkbloom.spark.storage;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import java.util.Arrays;
import java.util.Locale;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * Per-key filters as a Parquet table {@code (user, filter BINARY)} of FORMAT.md bytes: the table
 * the SQL functions build ({@code SELECT user, sparkbloom_build_per_key(item, p) AS filter ...
 * GROUP BY user}) and query ({@code sparkbloom_retain_absent(filter, items)}), written from and
 * read into {@code JavaPairRDD<K, BloomFilter>}, so that one stored form serves RDD code, SQL,
 * Spark Connect and Python. The key column's SQL type follows the key class: {@code STRING} for
 * {@code String}, {@code BIGINT} for {@code Long} (an {@code INT} column reads as {@code Long}
 * too).
 *
 * <p>A table row always holds a key and a filter: a null key could never be joined in SQL, and a
 * missing filter would keep every candidate of its user, seen or not. So a null key or filter is
 * refused when writing, and a NULL or undecodable cell when reading, with an {@link
 * IllegalArgumentException} naming the column, the user and (reading) the file.
 */
public final class FilterTable {
  /** The key column. */
  public static final String KEY_COLUMN = "user";
  /** The filter column: FORMAT.md bytes. */
  public static final String FILTER_COLUMN = "filter";

  private FilterTable() {}

  /**
   * Writes {@code filters} to {@code path} as Parquet {@code (user, filter BINARY)}; fails if
   * {@code path} exists, as {@code saveAsObjectFile} does.
   *
   * @throws IllegalArgumentException (on the driver) if {@code keyType} is neither {@code String}
   *     nor {@code Long}; (in the job) for a null key, a null filter or a key of another class,
   *     naming it
   */
  public static <K> void save(JavaPairRDD<K, BloomFilter> filters, String path, Class<K> keyType) {
    DataType sqlType = sqlType(keyType, "saveAsTable");
    StructType schema = new StructType()
        .add(KEY_COLUMN, sqlType, false)
        .add(FILTER_COLUMN, DataTypes.BinaryType, false);
    JavaRDD<Row> rows = filters.map(kv -> RowFactory.create(checkedKey(kv._1(), keyType),
        checkedFilter(kv._1(), kv._2()).toByteArray()));
    session(JavaSparkContext.fromSparkContext(filters.context()))
        .createDataFrame(rows, schema).write().parquet(path);
  }

  /**
   * Reads the table at {@code path} (any Parquet {@code (user, filter BINARY)} table, e.g. one
   * written by SQL) as {@code (key, filter)} pairs; each filter is decoded in the task that reads
   * its row.
   *
   * @throws IllegalArgumentException (on the driver) if the table lacks a column or has one of
   *     another type, naming it, its type and the table's columns; (in the job) for a NULL key or
   *     filter, or bytes that are not a filter, naming the column, the user and the file
   */
  public static <K> JavaPairRDD<K, BloomFilter> read(JavaSparkContext jsc, String path, Class<K> keyType) {
    DataType wanted = sqlType(keyType, "readTable");
    Dataset<Row> table = session(jsc).read().parquet(path);
    StructType schema = table.schema();
    String key = column(schema, KEY_COLUMN, path);
    String filter = column(schema, FILTER_COLUMN, path);
    DataType keySql = schema.apply(key).dataType();
    boolean intKeys = keySql.equals(DataTypes.IntegerType) && keyType == Long.class;
    if (!keySql.equals(wanted) && !intKeys) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "PerKeyFilters.readTable(%s): column %s is %s, not %s as keys of %s need",
          path, key, keySql.sql(), wanted.sql(), keyType.getSimpleName()));
    }
    DataType filterSql = schema.apply(filter).dataType();
    if (!filterSql.equals(DataTypes.BinaryType)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "PerKeyFilters.readTable(%s): column %s is %s, not BINARY (FORMAT.md bytes)",
          path, filter, filterSql.sql()));
    }
    return table.select(functions.col(key), functions.col(filter), functions.input_file_name())
        .javaRDD()
        .mapToPair(row -> decoded(row, keyType, intKeys));
  }

  /** One row as (key, filter), its cells checked. */
  private static <K> Tuple2<K, BloomFilter> decoded(Row row, Class<K> keyType, boolean intKeys) {
    String file = row.getString(2);
    if (row.isNullAt(0)) {
      throw new IllegalArgumentException("PerKeyFilters.readTable: a row of " + file + " has a NULL "
          + KEY_COLUMN + " (every row needs a key)");
    }
    Object k = intKeys ? Long.valueOf(row.getInt(0)) : row.get(0);
    K key = keyType.cast(k);
    if (row.isNullAt(1)) {
      throw new IllegalArgumentException("PerKeyFilters.readTable: " + FILTER_COLUMN + " of "
          + KEY_COLUMN + " " + quoted(key) + " in " + file + " is NULL (a missing filter would keep"
          + " every candidate of the user, seen or not)");
    }
    byte[] bytes = (byte[]) row.get(1);
    try {
      return new Tuple2<>(key, BloomFilter.fromByteArray(bytes));
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException("PerKeyFilters.readTable: " + FILTER_COLUMN + " of "
          + KEY_COLUMN + " " + quoted(key) + " in " + file + " is not a sparkbloom filter ("
          + bytes.length + " bytes): " + e.getMessage(), e);
    }
  }

  private static Object checkedKey(Object key, Class<?> keyType) {
    if (key == null) {
      throw new IllegalArgumentException("PerKeyFilters.saveAsTable: a null key cannot be a "
          + KEY_COLUMN + " (SQL joins never match NULL); drop it or give it a value first");
    }
    if (!keyType.isInstance(key)) {
      throw new IllegalArgumentException("PerKeyFilters.saveAsTable: key " + quoted(key) + " is a "
          + key.getClass().getName() + ", not the " + keyType.getName() + " the table's "
          + KEY_COLUMN + " column was declared with");
    }
    return key;
  }

  private static BloomFilter checkedFilter(Object key, BloomFilter filter) {
    if (filter == null) {
      throw new IllegalArgumentException("PerKeyFilters.saveAsTable: the filter of " + KEY_COLUMN
          + " " + quoted(key) + " is null; a stored null would keep every candidate of the user,"
          + " seen or not (drop the key, or store an empty filter)");
    }
    return filter;
  }

  /** The key column's SQL type for keys of {@code keyType}. */
  private static DataType sqlType(Class<?> keyType, String helper) {
    if (keyType == String.class) {
      return DataTypes.StringType;
    }
    if (keyType == Long.class) {
      return DataTypes.LongType;
    }
    throw new IllegalArgumentException("PerKeyFilters." + helper + ": keys must be String or Long"
        + " (a STRING or BIGINT " + KEY_COLUMN + " column), got "
        + (keyType == null ? "null" : keyType.getName()));
  }

  /** The schema's column named {@code name} (as Spark resolves names, ignoring case). */
  private static String column(StructType schema, String name, String path) {
    for (StructField f : schema.fields()) {
      if (f.name().equalsIgnoreCase(name)) {
        return f.name();
      }
    }
    throw new IllegalArgumentException("PerKeyFilters.readTable(" + path + "): no column " + name
        + " (the table has " + Arrays.toString(schema.fieldNames()) + "; per-key filters are a"
        + " (" + KEY_COLUMN + ", " + FILTER_COLUMN + " BINARY) table)");
  }

  private static String quoted(Object key) {
    return key instanceof String ? "\"" + key + "\"" : String.valueOf(key);
  }

  /** The active session, else one on {@code jsc}'s context. */
  private static SparkSession session(JavaSparkContext jsc) {
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isDefined()) {
      return active.get();
    }
    scala.Option<SparkSession> fallback = SparkSession.getDefaultSession();
    if (fallback.isDefined()) {
      return fallback.get();
    }
    // getOrCreate reuses the running SparkContext (jsc's) and its conf
    return SparkSession.builder().config(jsc.getConf()).getOrCreate();
  }
}
