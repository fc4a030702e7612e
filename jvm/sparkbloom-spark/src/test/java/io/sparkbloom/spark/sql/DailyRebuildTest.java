package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * The daily rebuild of per-user filters in SQL only, with the functions of {@code
 * spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions}: yesterday's table {@code (user,
 * filter, count, capacity)} and today's events give today's table. A user whose count (yesterday's
 * plus today's distinct items: an upper bound of the distinct items, as today may repeat old
 * ones) still fits the capacity its filter was built for gets today's items OR-ed in, from a
 * filter of today's items built with the same (capacity, p) so the shapes match; a user who
 * outgrew it, or is new, is rebuilt from all its events with twice the count as the capacity.
 * The first day runs the same recipe on an empty yesterday.
 */
class DailyRebuildTest extends WithExtension {
  /**
   * The recipe: {@code filters_yesterday}, {@code today} (today's events) and {@code events} (all
   * events up to today's) give {@code filters_today}.
   */
  static final String SIZED = String.join("\n",
      "CREATE OR REPLACE TEMP VIEW sized AS",
      "SELECT coalesce(y.user, t.user) AS user, y.filter, y.capacity,",
      "  coalesce(y.count, 0) + coalesce(t.added, 0) AS count,",
      "  coalesce(y.count, 0) + coalesce(t.added, 0) <= coalesce(y.capacity, 0) AS fits",
      "FROM filters_yesterday y FULL JOIN",
      "  (SELECT user, count(DISTINCT item) AS added FROM today GROUP BY user) t ON y.user = t.user");
  static final String REBUILD = String.join("\n",
      "CREATE TABLE filters_today USING parquet AS",
      "SELECT user, sparkbloom_merge(filter) AS filter, max(count) AS count, max(capacity) AS capacity FROM (",
      "  SELECT user, filter, count, capacity FROM sized WHERE fits",
      "  UNION ALL SELECT s.user, sparkbloom_build(t.item, s.capacity, 0.01), s.count, s.capacity",
      "    FROM today t JOIN sized s ON t.user = s.user AND s.fits GROUP BY s.user, s.count, s.capacity",
      "  UNION ALL SELECT s.user, sparkbloom_build(e.item, 2 * s.count, 0.01), count(DISTINCT e.item), 2 * s.count",
      "    FROM events e JOIN sized s ON e.user = s.user AND NOT s.fits GROUP BY s.user, s.count",
      ") GROUP BY user");

  /** Day 1: users u0..u34 with items u * 1,000,000 + k for k in 0..99. */
  private static final String DAY1 = "SELECT concat('u', CAST(id DIV 100 AS STRING)) AS user,"
      + " (id DIV 100) * 1000000 + id % 100 AS item FROM range(3500)";
  /**
   * Day 2: u0..u18 10 old items again and 40 new ones (count 150 of capacity 200: merged); u19
   * 100 new (200 of 200: merged); u20..u29 150 new (250: rebuilt with capacity 500); u30..u34
   * none (kept); new users u100..u104 20 items each (rebuilt with capacity 40).
   */
  private static final String DAY2 = "SELECT concat('u', CAST(u AS STRING)) AS user,"
      + " u * 1000000 + k AS item FROM ("
      + " SELECT id DIV 50 AS u, CASE WHEN id % 50 < 10 THEN id % 50 ELSE 90 + id % 50 END AS k"
      + "   FROM range(950)"
      + " UNION ALL SELECT 19, 100 + id FROM range(100)"
      + " UNION ALL SELECT 20 + id DIV 150, 100 + id % 150 FROM range(1500)"
      + " UNION ALL SELECT 100 + id DIV 20, id % 20 FROM range(100))";

  DailyRebuildTest() {
    super(4);
  }

  /** Runs the recipe with {@code yesterday} as filters_yesterday into table {@code into}. */
  private void rebuild(String yesterday, String todaysEvents, String allEvents, String into) {
    extension.sql("CREATE OR REPLACE TEMP VIEW filters_yesterday AS SELECT * FROM " + yesterday);
    extension.sql("CREATE OR REPLACE TEMP VIEW today AS " + todaysEvents);
    extension.sql("CREATE OR REPLACE TEMP VIEW events AS " + allEvents);
    extension.sql(SIZED);
    extension.sql(REBUILD.replace("filters_today", into));
  }

  @Test
  void usersWithRoomAreMergedAndUsersWhoOutgrewTheirFilterAreRebuilt() {
    extension.sql("CREATE TABLE filters_day0 (user STRING, filter BINARY, count BIGINT, capacity BIGINT)"
        + " USING parquet");
    rebuild("filters_day0", DAY1, DAY1, "filters_day1");
    assertEquals(35L, count("SELECT count(*) FROM sized WHERE NOT fits"), "day 1: everyone is built");
    assertEquals(35L, count("SELECT count(*) FROM filters_day1 WHERE count = 100 AND capacity = 200"));

    rebuild("filters_day1", DAY2, DAY1 + " UNION ALL " + DAY2, "filters_day2");
    assertEquals(25L, count("SELECT count(*) FROM sized WHERE fits"), "u0..u19 and u30..u34 merged");
    assertEquals(15L, count("SELECT count(*) FROM sized WHERE NOT fits"), "u20..u29 and 5 new rebuilt");

    Map<String, long[]> table = new HashMap<>();
    for (Row r : extension.sql("SELECT user, count, capacity FROM filters_day2").collectAsList()) {
      table.put(r.getString(0), new long[] {r.getLong(1), r.getLong(2)});
    }
    assertEquals(40, table.size());
    for (int u = 0; u < 35; u++) {
      long[] expected = u < 19 ? new long[] {150, 200} // 100 + 50 today, 10 of them repeats
          : u == 19 ? new long[] {200, 200}
          : u < 30 ? new long[] {250, 500}
          : new long[] {100, 200};
      long[] got = table.get("u" + u);
      assertEquals(List.of(expected[0], expected[1]), List.of(got[0], got[1]), "u" + u);
    }
    for (int u = 100; u < 105; u++) {
      long[] got = table.get("u" + u);
      assertEquals(List.of(20L, 40L), List.of(got[0], got[1]), "u" + u);
    }

    extension.sql("CREATE OR REPLACE TEMP VIEW events AS " + DAY1 + " UNION ALL " + DAY2);
    assertEquals(0L, count("SELECT count_if(NOT sparkbloom_might_contain(f.filter, e.item))"
        + " FROM events e JOIN filters_day2 f ON e.user = f.user"), "seen items the new filters let through");
    assertEquals(3500L + 950 + 100 + 1500 + 100, count("SELECT count(*) FROM events"));
    // a merged filter is the filter of all the user's items built at once with its capacity
    Row same = extension.sql("SELECT count_if(f.filter = b.filter), count(*) FROM filters_day2 f JOIN"
        + " (SELECT e.user, sparkbloom_build(e.item, f.capacity, 0.01) AS filter FROM events e"
        + " JOIN filters_day2 f ON e.user = f.user GROUP BY e.user, f.capacity) b ON f.user = b.user")
        .first();
    assertEquals(List.of(40L, 40L), List.of(same.getLong(0), same.getLong(1)));
  }

  private long count(String sql) {
    return extension.sql(sql).first().getLong(0);
  }
}
