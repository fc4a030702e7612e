package io.sparkbloom.spark.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.io.BytesWritable;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * One {@code saveAsObjectFile} record read by {@link ObjectFileRecords}: as its filters, and as
 * each filter's FORMAT bytes without decoding ({@link SavedFilterBytes} read in place of the
 * core's serial proxy).
 */
class ObjectFileRecordsTest {
  private static final double P = 0.001;

  @Test
  void aSavedRecordReadsAsTheFiltersBytesWithoutDecoding() throws IOException, ClassNotFoundException {
    // the core's serial proxy has the persisted form SavedFilterBytes reads in its place
    assertTrue(SavedFilterBytes.standsFor(ObjectStreamClass.lookup(Class.forName(SavedFilterBytes.PROXY_CLASS))));
    BloomFilter sparse = Sizing.fixed(10_000, P).build(new long[] {1, 2, 3});
    BloomFilter dense = Sizing.perKeyCount(P).build(new long[] {4, 5, 6});
    Object[] group = {new Tuple2<>("a", sparse), new Tuple2<>("b", null), new Tuple2<>("c", dense),
        new Tuple2<>("a", sparse)}; // the same filter twice: a back-reference in the stream
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(group);
    }
    Iterator<Tuple2<String, byte[]>> read = ObjectFileRecords.deserializeEncoded(new BytesWritable(bytes.toByteArray()));
    List<Tuple2<String, byte[]>> all = new ArrayList<>();
    read.forEachRemaining(all::add);
    assertEquals(4, all.size());
    assertEquals("a", all.get(0)._1());
    assertArrayEquals(sparse.toByteArray(), all.get(0)._2());
    assertEquals(null, all.get(1)._2());
    assertArrayEquals(dense.toByteArray(), all.get(2)._2());
    assertArrayEquals(sparse.toByteArray(), all.get(3)._2());
    // the same record read the ordinary way gives the filters
    Iterator<Tuple2<String, BloomFilter>> decoded = ObjectFileRecords.deserialize(new BytesWritable(bytes.toByteArray()));
    assertEquals(sparse, decoded.next()._2());
  }
}
