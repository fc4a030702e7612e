package consumer;

import static org.apache.spark.sql.functions.col;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.PerKeyOptions;
import io.sparkbloom.spark.Sizing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * The per-user dedup as a Java user of sparkbloom-spark_2.13 writes it: one filter per user from
 * a generated history, stored as an objectFile, then per user the candidates the user's filter
 * has not seen, by the join, by the saved-path dedup and by the DataFrame functions. Each answer
 * is checked against the exact sets: no seen item may come back, and all but a few unseen ones
 * must. Exits non-zero (an exception) on any failed check.
 */
public final class PerUserDedupConsumer {
  static final int USERS = 200;
  static final int HISTORY = 100;
  static final int SEEN_CANDIDATES = 50;
  static final int NEW_CANDIDATES = 50;
  static final double FPP = 0.001;
  /**
   * The most unseen candidates a filter may drop. Each of the USERS x NEW_CANDIDATES = 10,000 unseen
   * items is a false positive with probability FPP (every filter holds the HISTORY items it is sized
   * for): Binomial(10,000, 0.001), mean 10, standard deviation 3.2; 100 is 28 deviations above.
   */
  static final long MAX_DROPPED = 100;

  private PerUserDedupConsumer() {}

  public static void main(String[] args) {
    String output = args.length > 0 ? args[0] : "target/gradle-consumer/filters";
    SparkSession spark = SparkSession.builder().master("local[2]").appName("gradle consumer").getOrCreate();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());

    Random rnd = new Random(20_241_125L);
    Map<String, Set<Long>> seen = new HashMap<>();
    List<Tuple2<String, Long>> history = new ArrayList<>();
    List<Tuple2<String, long[]>> candidates = new ArrayList<>();
    long unseen = 0;
    for (int u = 0; u < USERS; u++) {
      String user = "user-" + u;
      long[] items = rnd.longs(HISTORY).toArray();
      Set<Long> set = new HashSet<>();
      for (long item : items) {
        set.add(item);
        history.add(new Tuple2<>(user, item));
      }
      seen.put(user, set);
      long[] offered = new long[SEEN_CANDIDATES + NEW_CANDIDATES];
      System.arraycopy(items, 0, offered, 0, SEEN_CANDIDATES);
      for (int i = SEEN_CANDIDATES; i < offered.length; i++) {
        offered[i] = rnd.nextLong();
        unseen += set.contains(offered[i]) ? 0 : 1;
      }
      candidates.add(new Tuple2<>(user, offered));
    }
    JavaPairRDD<String, long[]> candidateRdd = jsc.parallelizePairs(candidates, 4);

    // 1. one filter per user in 4 hash partitions, saved as an objectFile
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerKey(
            jsc.parallelizePairs(history, 4),
            PerKeyOptions.of(Sizing.fixed(HISTORY, FPP)).withPartitions(4));
    PerKeyFilters.saveAsObjectFile(filters, output);

    // 2. later: the saved filters against the candidates, joined (only the candidates move) ...
    JavaPairRDD<String, BloomFilter> stored = PerKeyFilters.objectFile(jsc, output);
    check("RDD join", PerKeyFilters.dedup(stored, candidateRdd).collectAsMap(), seen, unseen);
    // ... and planned by the saved files' size (small here: broadcast)
    check("RDD saved", PerKeyFilters.dedup(jsc, output, candidateRdd).collectAsMap(), seen, unseen);

    // 3. the same with DataFrames: a binary filter column per user, then keep the unseen ones
    StructType pairs = new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.LongType);
    StructType lists = new StructType()
        .add("user", DataTypes.StringType).add("items", DataTypes.createArrayType(DataTypes.LongType));
    List<Row> historyRows = new ArrayList<>();
    history.forEach(t -> historyRows.add(RowFactory.create(t._1(), t._2())));
    List<Row> candidateRows = new ArrayList<>();
    for (Tuple2<String, long[]> t : candidates) {
      Long[] boxed = new Long[t._2().length];
      for (int i = 0; i < boxed.length; i++) {
        boxed[i] = t._2()[i];
      }
      candidateRows.add(RowFactory.create(t._1(), boxed));
    }
    Dataset<Row> filterDf = spark.createDataFrame(historyRows, pairs).groupBy("user")
        .agg(BloomFunctions.build(col("item"), HISTORY, FPP).as("filter"));
    List<Row> kept = spark.createDataFrame(candidateRows, lists)
        .join(filterDf, new String[] {"user"}, "left")
        .select(col("user"), BloomFunctions.retainAbsent(col("filter"), col("items")).as("items"))
        .collectAsList();
    Map<String, long[]> keptDf = new HashMap<>();
    for (Row row : kept) {
      List<Long> items = row.getList(1);
      keptDf.put(row.getString(0), items.stream().mapToLong(Long::longValue).toArray());
    }
    check("DataFrame", keptDf, seen, unseen);
    spark.stop();
  }

  /** Fails unless {@code kept} holds no seen item and all but at most MAX_DROPPED unseen ones. */
  static void check(String how, Map<String, long[]> kept, Map<String, Set<Long>> seen, long unseen) {
    if (kept.size() != USERS) {
      throw new IllegalStateException(how + ": " + kept.size() + " users came back, expected " + USERS);
    }
    long total = 0;
    for (Map.Entry<String, long[]> e : kept.entrySet()) {
      for (long item : e.getValue()) {
        if (seen.get(e.getKey()).contains(item)) {
          throw new IllegalStateException(how + ": " + e.getKey() + "'s seen item " + item + " came back");
        }
      }
      total += e.getValue().length;
    }
    if (total < unseen - MAX_DROPPED) {
      throw new IllegalStateException(how + ": kept " + total + " of " + unseen + " unseen candidates, "
          + "more than " + MAX_DROPPED + " dropped");
    }
    System.out.println(how + ": kept " + total + " of " + USERS * (SEEN_CANDIDATES + NEW_CANDIDATES)
        + " candidates (" + unseen + " unseen, none seen)");
  }
}
