package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.Strategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * From {@code df.stat.bloomFilter(...)} (Spark's own sketch filter, built by a real aggregation
 * on local Spark) to ours: {@code fromSpark} of the live object and {@code readSpark} of its
 * {@code writeTo} bytes answer every probe as Spark's filter does, and Spark reads back what
 * {@code writeSpark} writes.
 */
class SparkSketchDataFrameTest extends WithSparkSession {
  private static final int ROWS = 50_000;
  private Dataset<Row> df;

  @BeforeAll
  void start() {
    SplittableRandom r = new SplittableRandom(14);
    List<Row> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(RowFactory.create(r.nextLong(), name(r)));
    }
    StructType schema = new StructType()
        .add("id", DataTypes.LongType, false)
        .add("name", DataTypes.StringType, false);
    df = spark.createDataFrame(rows, schema).repartition(4);
  }

  /** Names with ASCII, accented, CJK and non-BMP characters. */
  private static String name(SplittableRandom r) {
    String[] parts = {"user", "Zoë", "東京", "😀", "ß", "𝄞", "-"};
    StringBuilder s = new StringBuilder();
    for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
      s.append(parts[r.nextInt(parts.length)]).append(r.nextInt(1000));
    }
    return s.toString();
  }

  private static BloomFilter viaBytes(org.apache.spark.util.sketch.BloomFilter sketch)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    sketch.writeTo(out);
    return BloomFilter.readSpark(new ByteArrayInputStream(out.toByteArray()));
  }

  @Test
  void longColumn() throws Exception {
    org.apache.spark.util.sketch.BloomFilter sketch = df.stat().bloomFilter("id", ROWS, 0.01);
    try (BloomFilter ours = BloomFilter.fromSpark(sketch); BloomFilter read = viaBytes(sketch)) {
      assertEquals(ours, read);
      assertTrue(ours.strategy() == Strategy.SPARK_SKETCH_V1 || ours.strategy() == Strategy.SPARK_SKETCH_V2);
      int mismatches = 0;
      int positives = 0;
      for (Row row : df.select("id").collectAsList()) {
        assertTrue(ours.mightContain(row.getLong(0)), "no false negative");
      }
      SplittableRandom probes = new SplittableRandom(99);
      for (int i = 0; i < 200_000; i++) {
        long key = probes.nextLong();
        boolean sparkSays = sketch.mightContainLong(key);
        mismatches += sparkSays == ours.mightContain(key) ? 0 : 1;
        positives += sparkSays ? 1 : 0;
      }
      System.out.printf("df.stat.bloomFilter(id) %s: 200000 probes, %d mismatches, %d positives%n",
          ours.strategy(), mismatches, positives);
      assertEquals(0, mismatches);
      assertTrue(positives > 0, "the probes met Spark's false positives too");

      ByteArrayOutputStream back = new ByteArrayOutputStream();
      ours.writeSpark(back);
      org.apache.spark.util.sketch.BloomFilter reloaded =
          org.apache.spark.util.sketch.BloomFilter.readFrom(new ByteArrayInputStream(back.toByteArray()));
      assertEquals(sketch, reloaded);
    }
  }

  @Test
  void stringColumn() throws Exception {
    org.apache.spark.util.sketch.BloomFilter sketch = df.stat().bloomFilter("name", ROWS, 0.01);
    try (BloomFilter ours = BloomFilter.fromSpark(sketch)) {
      List<Row> names = df.select("name").collectAsList();
      for (Row row : names) {
        assertTrue(ours.mightContain(row.getString(0)), "no false negative");
      }
      SplittableRandom probes = new SplittableRandom(7);
      int mismatches = 0;
      for (int i = 0; i < 200_000; i++) {
        String key = name(probes) + "~";
        mismatches += sketch.mightContainString(key) == ours.mightContain(key) ? 0 : 1;
      }
      assertEquals(0, mismatches);
      ByteArrayOutputStream back = new ByteArrayOutputStream();
      ours.writeSpark(back);
      ByteArrayOutputStream original = new ByteArrayOutputStream();
      sketch.writeTo(original);
      assertArrayEquals(original.toByteArray(), back.toByteArray());
    }
  }
}
