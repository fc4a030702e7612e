package io.sparkbloom.spark.dedup;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import scala.Tuple2;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Collects encoded filters to the driver, grouped by key, keeping at most a given number of
 * their bytes there: one Spark job whose tasks each send their partition's filters (or, when
 * those alone are over the limit, only that fact) and whose result handler on the driver keeps a
 * running total and fails the job with {@link BroadcastLimit.Exceeded} once it is over. So the
 * driver holds at most the limit, plus the one partition's result that crosses it while it is
 * being looked at; results that arrive after that are dropped.
 *
 * <p>Spark runs the result handler in its scheduler and reports an exception thrown there as the
 * job's failure (a {@code SparkDriverExecutionException} whose cause is the exception), the
 * other tasks finishing unheeded; {@link #byKey} unwraps it to the {@code Exceeded} itself.
 */
final class BoundedCollect {
  private BoundedCollect() {}

  static <K> Map<K, byte[][]> byKey(JavaPairRDD<K, byte[]> filters, long maxBytes) {
    Handler<K> handler = new Handler<>(maxBytes);
    @SuppressWarnings("unchecked")
    ClassTag<Part<K>> tag = (ClassTag<Part<K>>) (ClassTag<?>) ClassTag$.MODULE$.apply(Part.class);
    try {
      filters.context().runJob(filters.rdd(), new PartFunction<K>(maxBytes), handler, tag);
    } catch (Exception e) { // a SparkException, which Scala throws undeclared
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof BroadcastLimit.Exceeded) {
          BroadcastLimit.Exceeded thrown = new BroadcastLimit.Exceeded(c.getMessage());
          thrown.initCause(e);
          throw thrown;
        }
      }
      throw e; // precise rethrow: Java sees only unchecked exceptions here
    }
    if (handler.exceeded != null) { // in case a Spark version kept the handler's exception to itself
      throw handler.exceeded;
    }
    return handler.byKey;
  }

  /** One partition's non-null filters and their bytes; {@code records} null: over the limit alone. */
  static final class Part<K> implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<Tuple2<K, byte[]>> records;
    final long bytes;

    Part(List<Tuple2<K, byte[]>> records, long bytes) {
      this.records = records;
      this.bytes = bytes;
    }
  }

  /** The task's side: its partition's filters, read until they alone pass the limit. */
  private static final class PartFunction<K>
      extends AbstractFunction1<scala.collection.Iterator<Tuple2<K, byte[]>>, Part<K>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final long maxBytes;

    PartFunction(long maxBytes) {
      this.maxBytes = maxBytes;
    }

    @Override
    public Part<K> apply(scala.collection.Iterator<Tuple2<K, byte[]>> it) {
      List<Tuple2<K, byte[]>> records = new ArrayList<>();
      long bytes = 0;
      while (it.hasNext()) {
        Tuple2<K, byte[]> t = it.next();
        if (t._2() == null) { // a null filter is no filter, as in the hash join
          continue;
        }
        bytes += t._2().length;
        if (bytes > maxBytes) {
          return new Part<>(null, bytes); // send the size only: the driver fails the job
        }
        records.add(t);
      }
      return new Part<>(records, bytes);
    }
  }

  /** The driver's side: a running total, the filters merged per key, the job failed once over. */
  private static final class Handler<K> extends AbstractFunction2<Object, Part<K>, BoxedUnit> {
    private final long maxBytes;
    private final Map<K, byte[][]> byKey = new HashMap<>();
    private long total;
    private BroadcastLimit.Exceeded exceeded;

    Handler(long maxBytes) {
      this.maxBytes = maxBytes;
    }

    @Override
    public BoxedUnit apply(Object partition, Part<K> part) {
      if (exceeded != null) {
        return BoxedUnit.UNIT; // the job has failed: drop what still arrives
      }
      total += part.bytes;
      if (part.records == null || total > maxBytes) {
        byKey.clear();
        exceeded = BroadcastLimit.exceeded("the filters collected so far take at least", total, maxBytes);
        throw exceeded;
      }
      for (Tuple2<K, byte[]> t : part.records) {
        byKey.merge(t._1(), new byte[][] {t._2()}, BoundedCollect::concat);
      }
      return BoxedUnit.UNIT;
    }
  }

  private static byte[][] concat(byte[][] a, byte[][] b) {
    byte[][] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
