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
 * core's serial proxy), in the proxy's current block-data form and its earlier array form.
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

  /**
   * Records saved before 2026-11-23 hold the proxy's array form (one unshared {@code byte[]}):
   * made here by writing {@link SavedFilterBytes}, which writes that form with the same
   * descriptor flags, UID and (no) fields, then renaming its class to the proxy's in the stream.
   */
  @Test
  void aRecordInTheEarlierArrayFormReadsAsItsBytes() throws IOException, ClassNotFoundException {
    BloomFilter sparse = Sizing.fixed(10_000, P).build(new long[] {1, 2, 3});
    Object[] group = {new Tuple2<>("a", new SavedFilterBytes(sparse.toByteArray()))};
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(group);
    }
    byte[] stream = renamed(bytes.toByteArray(), SavedFilterBytes.class.getName(), SavedFilterBytes.PROXY_CLASS);
    Iterator<Tuple2<String, byte[]>> read = ObjectFileRecords.deserializeEncoded(new BytesWritable(stream));
    assertArrayEquals(sparse.toByteArray(), read.next()._2());
    Iterator<Tuple2<String, BloomFilter>> decoded = ObjectFileRecords.deserialize(new BytesWritable(stream));
    assertEquals(sparse, decoded.next()._2());
  }

  /** {@code stream} with the class name {@code from} (as the stream spells it) replaced. */
  private static byte[] renamed(byte[] stream, String from, String to) {
    byte[] old = utf(from);
    byte[] replacement = utf(to);
    for (int at = 0; at + old.length <= stream.length; at++) {
      if (java.util.Arrays.equals(stream, at, at + old.length, old, 0, old.length)) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(stream, 0, at);
        out.write(replacement, 0, replacement.length);
        out.write(stream, at + old.length, stream.length - at - old.length);
        return out.toByteArray();
      }
    }
    throw new AssertionError(from + " not in the stream");
  }

  /** A class name as a stream spells it: 2-byte length, then the (ASCII) characters. */
  private static byte[] utf(String name) {
    byte[] chars = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] out = new byte[chars.length + 2];
    out[0] = (byte) (chars.length >> 8);
    out[1] = (byte) chars.length;
    System.arraycopy(chars, 0, out, 2, chars.length);
    return out;
  }
}
