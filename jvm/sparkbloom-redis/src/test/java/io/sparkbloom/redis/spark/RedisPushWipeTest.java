package io.sparkbloom.redis.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.redis.FiltersMissingException;
import io.sparkbloom.redis.RedisBloom;
import io.sparkbloom.redis.RedisLayout;
import io.sparkbloom.redis.ServerPerClass;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import scala.Tuple2;

/**
 * A server wiped while {@link RedisPush} runs: a second client sends {@code FLUSHALL} once two
 * batches of a partition are written. The push fails with {@link FiltersMissingException}, no
 * task (first or retried) writes after the wipe or re-creates the marker, and the service that
 * expected the filters refuses to answer until a push completes.
 */
class RedisPushWipeTest extends WithSpark {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(100, 0.01);
  private static final int USERS = 4_000;
  private static final int ITEMS = 5;
  /**
   * The user whose turn flushes the server: the 1,401st of partition 0 (users in order, two
   * partitions), when its task has stored two batches of {@link RedisPush#BATCH} and fills the third.
   */
  private static final String WIPE_AT = "u1400";
  /** Whether the flush happened: tasks run in this JVM (local mode), and a retried task must not flush again. */
  private static final AtomicBoolean WIPED = new AtomicBoolean();

  @RegisterExtension static final ServerPerClass server = new ServerPerClass();

  RedisPushWipeTest() {
    // Four attempts per task: a task failed by the wipe is retried, and must fail again.
    super("local[2,4]", "ERROR");
  }

  @BeforeEach
  void emptyServer() {
    try (Jedis jedis = server.raw()) {
      jedis.flushAll();
    }
    WIPED.set(false);
  }

  @Test
  void wipeDuringASecondPushFailsItAndTheServiceNotices() {
    JavaPairRDD<String, BloomFilter> filters = filters().cache();
    assertEquals(USERS, RedisPush.push(filters, server.uri(), LAYOUT, "user:"));
    try (RedisBloom service = RedisBloom.connect(server.uri(), LAYOUT)) {
      service.checkPresent();
      assertEquals(0, service.retainAbsent("user:u1", items(1)).length);

      FiltersMissingException e = assertThrows(
          FiltersMissingException.class,
          () -> RedisPush.push(wipedMidway(filters), server.uri(), LAYOUT, "user:"));
      assertTrue(WIPED.get(), "the flush ran during the push");
      assertNamesMarkerAndRecovery(service, e);
      assertTasksRefusedAgainWhenRetried(e);
      assertNothingWrittenSinceTheWipe(service.markerKey());
      for (int u : new int[] {0, 1_000, 1_400, 2_000, USERS - 1}) {
        String key = "user:u" + u;
        long[] seen = items(u);
        assertThrows(FiltersMissingException.class, () -> service.retainAbsent(key, seen), key);
      }

      // Pushing again rebuilds the filters; the same service answers again, every item seen.
      assertEquals(USERS, RedisPush.push(filters, server.uri(), LAYOUT, "user:"));
      for (int u = 0; u < USERS; u++) {
        assertEquals(0, service.retainAbsent("user:u" + u, items(u)).length, "user u" + u);
      }
    }
  }

  /** The first push into an empty server creates the marker at its start; a wipe during it fails it too. */
  @Test
  void wipeDuringTheFirstPushFailsIt() {
    JavaPairRDD<String, BloomFilter> filters = filters().cache();
    FiltersMissingException e = assertThrows(
        FiltersMissingException.class,
        () -> RedisPush.push(wipedMidway(filters), server.uri(), LAYOUT, "user:"));
    assertTrue(WIPED.get(), "the flush ran during the push");
    assertTasksRefusedAgainWhenRetried(e);
    try (RedisBloom service = RedisBloom.connect(server.uri(), LAYOUT)) {
      assertNamesMarkerAndRecovery(service, e);
      assertNothingWrittenSinceTheWipe(service.markerKey());
      assertThrows(FiltersMissingException.class, service::checkPresent);

      assertEquals(USERS, RedisPush.push(filters, server.uri(), LAYOUT, "user:"));
      service.checkPresent();
      assertEquals(0, service.retainAbsent("user:u" + (USERS - 1), items(USERS - 1)).length);
    }
  }

  private static void assertNamesMarkerAndRecovery(RedisBloom client, FiltersMissingException e) {
    assertEquals(client.markerKey(), e.markerKey());
    assertTrue(e.getMessage().contains("'" + client.markerKey() + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("push them again"), e.getMessage());
  }

  /** The job's failure: a task failed by the wipe was retried, and refused each time. */
  private static void assertTasksRefusedAgainWhenRetried(FiltersMissingException e) {
    assertEquals(1, e.getSuppressed().length);
    String job = e.getSuppressed()[0].getMessage();
    assertTrue(job.contains("failed 4 times"), job);
    assertTrue(job.contains("FiltersMissingException"), job);
  }

  /** Every key written before the wipe went with it; after it, no store and no marker write ran. */
  private void assertNothingWrittenSinceTheWipe(String markerKey) {
    try (Jedis jedis = server.raw()) {
      assertFalse(jedis.exists(markerKey), "marker re-created");
      assertEquals(0, jedis.dbSize(), "keys written after the wipe");
    }
  }

  /** User u saw the items u·10 .. u·10 + 4. */
  private static long[] items(int u) {
    return LongStream.range(0, ITEMS).map(i -> u * 10L + i).toArray();
  }

  /** One filter per user, users u0 .. u3999 in order over two partitions. */
  private JavaPairRDD<String, BloomFilter> filters() {
    List<Integer> users = new ArrayList<>(USERS);
    for (int u = 0; u < USERS; u++) {
      users.add(u);
    }
    return jsc.parallelize(users, 2)
        .mapToPair(
            u -> {
              BloomFilter filter = LAYOUT.newFilter();
              filter.putAll(items(u));
              return new Tuple2<>("u" + u, filter);
            });
  }

  /** The filters, with a second client flushing the server when the push reaches {@link #WIPE_AT}. */
  private JavaPairRDD<String, BloomFilter> wipedMidway(JavaPairRDD<String, BloomFilter> filters) {
    String uri = server.uri();
    return filters.mapToPair(
        t -> {
          if (t._1().equals(WIPE_AT) && WIPED.compareAndSet(false, true)) {
            try (Jedis jedis = new Jedis(URI.create(uri))) {
              jedis.flushAll();
            }
          }
          return t;
        });
  }
}
