package io.sparkbloom.redis.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.redis.RedisBloom;
import io.sparkbloom.redis.RedisBloomException;
import io.sparkbloom.redis.RedisLayout;
import io.sparkbloom.redis.ServerPerClass;
import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.PerKeyFilters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import scala.Tuple2;

/** Filters built by Spark (RDD helpers and the SQL aggregate) pushed to a real redis-server. */
class RedisPushTest extends WithSpark {
  @RegisterExtension static final ServerPerClass server = new ServerPerClass();

  RedisPushTest() {
    super("local[2]", "WARN", "spark.sql.shuffle.partitions", "4", "spark.default.parallelism", "4");
  }

  /** (user, item) pairs: user u has 20 + u % 50 items. */
  private static List<Tuple2<String, Long>> pairs(int users) {
    List<Tuple2<String, Long>> out = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(5);
    for (int u = 0; u < users; u++) {
      for (int i = 0; i < 20 + u % 50; i++) {
        out.add(new Tuple2<>("u" + u, random.nextLong()));
      }
    }
    return out;
  }

  @Test
  void perKeyFiltersPushedTwiceGiveTheSameKeys() {
    RedisLayout layout = RedisLayout.guavaCompatible(1_000, 0.01);
    List<Tuple2<String, Long>> pairs = pairs(300);
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerKey(jsc.parallelizePairs(pairs, 4), 1_000, 0.01).cache();
    assertEquals(300, RedisPush.push(filters, server.uri(), layout, "rdd:"));
    Map<String, byte[]> first = snapshot("rdd:*");
    assertEquals(300, first.size());
    assertEquals(300, RedisPush.push(filters, server.uri(), layout, "rdd:"));
    Map<String, byte[]> second = snapshot("rdd:*");
    assertEquals(first.keySet(), second.keySet());
    first.forEach((k, v) -> assertArrayEquals(v, second.get(k), k));
    // Every pushed key answers as its filter: no item of the user's history is kept.
    try (RedisBloom client = RedisBloom.connect(server.uri(), layout)) {
      for (Tuple2<String, Long> p : pairs) {
        assertTrue(client.mightContain("rdd:" + p._1(), p._2()), p._1());
      }
      for (Tuple2<String, BloomFilter> f : filters.collect()) {
        try (BloomFilter loaded = client.load("rdd:" + f._1())) {
          assertEquals(f._2(), loaded);
        }
      }
    }
  }

  @Test
  void helperShapedFiltersBuiltAndPushed() {
    RedisLayout layout = RedisLayout.helperCompatible(500, 0.001);
    List<Tuple2<String, Long>> pairs = pairs(200);
    JavaPairRDD<String, BloomFilter> filters = RedisPush.buildPerKey(jsc.parallelizePairs(pairs, 4), layout);
    assertEquals(200, RedisPush.push(filters.rdd(), server.uri(), layout, "helper:"));
    try (RedisBloom client = RedisBloom.connect(server.uri(), layout); Jedis jedis = server.raw()) {
      for (Tuple2<String, Long> p : pairs) {
        // The service's own GETBIT per offset finds every item too.
        for (long o : layout.offsets(p._2())) {
          assertTrue(jedis.getbit("helper:" + p._1(), o));
        }
        assertEquals(0, client.retainAbsent("helper:" + p._1(), new long[] {p._2()}).length);
      }
    }
    // A filter of another shape fails the job; nothing of that job's partition is written.
    RedisLayout other = RedisLayout.helperCompatible(600, 0.001);
    SparkException e =
        assertThrows(SparkException.class, () -> RedisPush.push(filters, server.uri(), other, "other:"));
    assertTrue(String.valueOf(e.getMessage()).contains("is not the shape of"), e.getMessage());
    assertEquals(0, snapshot("other:*").size(), "a batch is checked before any of it is sent");
  }

  /** An unreachable server fails the push after the retries, naming the server; nothing reports success. */
  @Test
  void unreachableServerFailsThePush() throws Exception {
    int closedPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    RedisLayout layout = RedisLayout.guavaCompatible(1_000, 0.01);
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerKey(jsc.parallelizePairs(pairs(3), 1), 1_000, 0.01);
    // The driver finds the marker before any task runs.
    RedisBloomException e = assertThrows(
        RedisBloomException.class,
        () -> RedisPush.push(filters, "redis://127.0.0.1:" + closedPort, layout, "never:"));
    assertTrue(String.valueOf(e.getMessage()).contains("127.0.0.1:" + closedPort), e.getMessage());
  }

  /**
   * A push run again (a retried batch, a re-run task, tomorrow's push of the same history) after
   * the service put items online keeps those items: pushes OR into the keys.
   */
  @Test
  void pushAgainAfterOnlinePutsKeepsThem() {
    RedisLayout layout = RedisLayout.helperCompatible(500, 0.001);
    List<Tuple2<String, Long>> pairs = pairs(100);
    JavaPairRDD<String, BloomFilter> filters =
        RedisPush.buildPerKey(jsc.parallelizePairs(pairs, 4), layout).cache();
    assertEquals(100, RedisPush.push(filters, server.uri(), layout, "rerun:"));
    long[] online = new SplittableRandom(7).longs(100).toArray();
    try (RedisBloom service = RedisBloom.connect(server.uri(), layout)) {
      for (int u = 0; u < 100; u++) {
        service.put("rerun:u" + u, online[u]);
      }
    }
    assertEquals(100, RedisPush.push(filters, server.uri(), layout, "rerun:"));
    try (RedisBloom service = RedisBloom.connect(server.uri(), layout)) {
      for (int u = 0; u < 100; u++) {
        assertTrue(service.mightContain("rerun:u" + u, online[u]), "online put of u" + u + " kept");
      }
      for (Tuple2<String, Long> p : pairs) {
        assertTrue(service.mightContain("rerun:" + p._1(), p._2()), p._1());
      }
      // The push wrote the marker: the service expects the filters.
      service.checkPresent();
    }
  }

  /** A TTL Redis cannot express is refused on the driver, before any task runs. */
  @Test
  void subMillisecondTtlRefusedBeforeTheJob() {
    RedisLayout layout = RedisLayout.helperCompatible(500, 0.001);
    JavaPairRDD<String, BloomFilter> filters = RedisPush.buildPerKey(jsc.parallelizePairs(pairs(3), 1), layout);
    IllegalArgumentException e = assertThrows(
        IllegalArgumentException.class,
        () -> RedisPush.push(filters, server.uri(), layout, "ttl:", java.time.Duration.ofNanos(500_000)));
    assertTrue(e.getMessage().contains("ttl"), e.getMessage());
    assertEquals(0, snapshot("ttl:*").size());
  }

  @Test
  void dataFrameOfSqlBuiltFilters() {
    RedisLayout layout = RedisLayout.guavaCompatible(1_000, 0.01);
    List<Row> rows = new ArrayList<>();
    for (Tuple2<String, Long> p : pairs(100)) {
      rows.add(org.apache.spark.sql.RowFactory.create(p._1(), p._2()));
    }
    Dataset<Row> history = spark.createDataFrame(rows,
        new org.apache.spark.sql.types.StructType()
            .add("user", "string")
            .add("item", "long"));
    Dataset<Row> built = history.groupBy("user").agg(BloomFunctions.build(col("item"), 1_000, 0.01).as("filter"));
    assertEquals(100, RedisPush.pushDataFrame(built, "user", "filter", server.uri(), layout, "df:"));
    try (RedisBloom client = RedisBloom.connect(server.uri(), layout)) {
      for (Row r : rows) {
        assertTrue(client.mightContain("df:" + r.getString(0), r.getLong(1)));
      }
    }
    assertEquals(100, snapshot("df:*").size());
  }

  private Map<String, byte[]> snapshot(String pattern) {
    Map<String, byte[]> out = new TreeMap<>();
    try (Jedis jedis = server.raw()) {
      for (String key : jedis.keys(pattern)) {
        out.put(key, jedis.get(key.getBytes(StandardCharsets.UTF_8)));
      }
    }
    return out;
  }
}
