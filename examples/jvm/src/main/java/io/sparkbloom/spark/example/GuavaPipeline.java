package io.sparkbloom.spark.example;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.util.Arrays;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * Guava, as a classic Spark pipeline uses it: {@code BloomFilter.create(Funnels.longFunnel(), n, p)} and one
 * {@code put} per record &rarr; saveAsObjectFile &rarr; objectFile &rarr;
 * {@code leftOuterJoin(candidates)} &rarr; keep {@code !bf.mightContain(item)}.
 */
final class GuavaPipeline extends Pipeline {
  GuavaPipeline() {
    super("Guava");
  }

  @Override
  void buildAndSave(Options o, DedupData data, String uri) {
    int n = (int) Math.min(Integer.MAX_VALUE, o.n);
    double p = o.p;
    JavaPairRDD<String, BloomFilter<Long>> filters = data.pairs == null
        ? data.history.mapValues(records -> {
            BloomFilter<Long> bf = BloomFilter.create(Funnels.longFunnel(), n, p);
            for (long rec : records) {
              bf.put(rec);
            }
            return bf;
          })
        : data.pairs.groupByKey(data.history.getNumPartitions()).mapValues(items -> {
            BloomFilter<Long> bf = BloomFilter.create(Funnels.longFunnel(), n, p);
            for (Long rec : items) {
              bf.put(rec);
            }
            return bf;
          });
    filters.saveAsObjectFile(uri);
  }

  @Override
  JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri) {
    JavaPairRDD<String, BloomFilter<Long>> loaded =
        JavaPairRDD.fromJavaRDD(jsc.<Tuple2<String, BloomFilter<Long>>>objectFile(uri));
    return loaded.leftOuterJoin(data.candidates).mapValues(fc -> {
      BloomFilter<Long> bf = fc._1();
      long[] cands = fc._2().orElse(new long[0]);
      long[] keep = new long[cands.length];
      int k = 0;
      for (long c : cands) {
        if (!bf.mightContain(c)) {
          keep[k++] = c;
        }
      }
      return Arrays.copyOf(keep, k);
    });
  }
}
