package io.sparkbloom.spark.storage;

import io.sparkbloom.BloomFilter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapred.SequenceFileOutputFormat;
import org.apache.spark.api.java.JavaPairRDD;
import scala.Tuple2;

/**
 * Writes per-key filters in {@code saveAsObjectFile}'s layout (a SequenceFile of
 * {@code NullWritable} keys and Java-serialized {@code Object[]} values), so
 * {@code SparkContext.objectFile} and {@code PerKeyFilters.objectFile} read it unchanged, but with
 * larger groups: Spark serializes every 10 records into a fresh stream, repeating the class
 * descriptors of {@code Tuple2}, the filter's proxy and {@code byte[]} (about 170 bytes, 17 per
 * record: 4 % of a 400-byte per-key filter) and paying a stream set-up per 10 records. Here a
 * group holds up to {@value #MAX_RECORDS} records or about {@value #MAX_GROUP_BYTES} bytes of
 * filters, whichever comes first, so a group stays small in memory even for large filters.
 */
public final class ObjectFileWriter {
  private ObjectFileWriter() {}

  static final int MAX_RECORDS = 1024;
  static final long MAX_GROUP_BYTES = 1 << 20;

  public static <K> void save(JavaPairRDD<K, BloomFilter> filters, String path) {
    filters
        .mapPartitionsToPair(ObjectFileWriter::groups, true)
        .saveAsHadoopFile(path, NullWritable.class, BytesWritable.class, SequenceFileOutputFormat.class);
  }

  private static <K> Iterator<Tuple2<NullWritable, BytesWritable>> groups(Iterator<Tuple2<K, BloomFilter>> records) {
    return new Iterator<Tuple2<NullWritable, BytesWritable>>() {
      @Override
      public boolean hasNext() {
        return records.hasNext();
      }

      @Override
      public Tuple2<NullWritable, BytesWritable> next() {
        if (!records.hasNext()) {
          throw new NoSuchElementException();
        }
        List<Object> group = new ArrayList<>();
        long bytes = 0;
        while (records.hasNext() && group.size() < MAX_RECORDS && bytes < MAX_GROUP_BYTES) {
          Tuple2<K, BloomFilter> t = records.next();
          group.add(t);
          bytes += 64 + (t._2() == null ? 0 : t._2().bitSize() / 8);
        }
        return new Tuple2<>(NullWritable.get(), new BytesWritable(serialize(group.toArray())));
      }
    };
  }

  private static byte[] serialize(Object[] group) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(group);
    } catch (IOException e) {
      throw new UncheckedIOException("saveAsObjectFile: cannot serialize a group of filters", e);
    }
    return bytes.toByteArray();
  }
}
