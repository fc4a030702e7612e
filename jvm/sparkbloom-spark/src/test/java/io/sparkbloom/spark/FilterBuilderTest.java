package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkbloom.BloomFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The aggregation buffer and the batching helpers, without Spark. */
class FilterBuilderTest {
  private static byte[] direct(long n, double p, long[] items) {
    try (BloomFilter f = BloomFilter.create(n, p)) {
      f.putAll(items);
      return f.toByteArray();
    }
  }

  private static byte[] javaBytes(FilterBuilder b) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(b);
    }
    return bytes.toByteArray();
  }

  private static FilterBuilder javaRoundTrip(FilterBuilder b) throws Exception {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(javaBytes(b)))) {
      return (FilterBuilder) in.readObject();
    }
  }

  /** What {@code KryoSerializable.write} puts in Kryo's stream for {@code b}. */
  private static byte[] kryoBytes(FilterBuilder b) {
    Output out = new Output(1024, -1);
    b.write(new Kryo(), out);
    return out.toBytes();
  }

  private static FilterBuilder kryoRoundTrip(FilterBuilder b) {
    FilterBuilder read = new FilterBuilder();
    read.read(new Kryo(), new Input(kryoBytes(b)));
    return read;
  }

  @Test
  void buildEqualsDirectBuildAcrossBatchBoundaries() throws Exception {
    for (int count : new int[] {0, 1, 15, 16, 17, FilterBuilder.BATCH - 1, FilterBuilder.BATCH,
        FilterBuilder.BATCH + 1, 3 * FilterBuilder.BATCH + 5}) {
      long[] items = LongStream.range(0, count).map(i -> i * 0x9E3779B97F4A7C15L).toArray();
      FilterBuilder one = new FilterBuilder(20_000, 0.01);
      for (long v : items) {
        one.add(v);
      }
      assertArrayEquals(direct(20_000, 0.01, items), one.buildBytes(), "add, count " + count);
      FilterBuilder all = new FilterBuilder(20_000, 0.01).addAll(items);
      assertArrayEquals(direct(20_000, 0.01, items), all.buildBytes(), "addAll, count " + count);

      // split in two builders, serialized (both forms) and merged
      int half = count / 2;
      FilterBuilder a = new FilterBuilder(20_000, 0.01).addAll(Arrays.copyOfRange(items, 0, half));
      FilterBuilder b = new FilterBuilder(20_000, 0.01);
      for (long v : Arrays.copyOfRange(items, half, count)) {
        b.add(v);
      }
      FilterBuilder merged = javaRoundTrip(a).merge(javaRoundTrip(b));
      assertArrayEquals(direct(20_000, 0.01, items), merged.buildBytes(), "merged, count " + count);
      FilterBuilder a2 = new FilterBuilder(20_000, 0.01).addAll(Arrays.copyOfRange(items, 0, half));
      FilterBuilder b2 = new FilterBuilder(20_000, 0.01).addAll(Arrays.copyOfRange(items, half, count));
      FilterBuilder mergedKryo = kryoRoundTrip(a2).merge(kryoRoundTrip(b2));
      assertArrayEquals(direct(20_000, 0.01, items), mergedKryo.buildBytes(), "Kryo, count " + count);
    }
  }

  @Test
  void mergeRejectsDifferentSizingAndUnconfiguredIsNeutral() {
    FilterBuilder a = new FilterBuilder(100, 0.01).add(1);
    FilterBuilder b = new FilterBuilder(200, 0.01).add(2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.merge(b));
    assertTrue(e.getMessage().contains("n=100") && e.getMessage().contains("n=200"), e.getMessage());

    FilterBuilder zero = new FilterBuilder();
    assertTrue(zero.merge(a) == a);
    assertTrue(a.merge(new FilterBuilder()) == a);
    assertThrows(IllegalStateException.class, () -> new FilterBuilder().build());
    // the core's rules: 0 expected insertions count as 1, as in BloomFilter.create
    assertArrayEquals(direct(0, 0.01, new long[] {5}), new FilterBuilder(0, 0.01).add(5).buildBytes());
    IllegalArgumentException negative =
        assertThrows(IllegalArgumentException.class, () -> new FilterBuilder(-1, 0.01));
    assertTrue(negative.getMessage().contains("expectedInsertions"), negative.getMessage());
    IllegalArgumentException fpp = assertThrows(IllegalArgumentException.class, () -> new FilterBuilder(10, 1.0));
    assertTrue(fpp.getMessage().contains("fpp"), fpp.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new FilterBuilder().configure(10, 0.0));
    assertThrows(IllegalArgumentException.class,
        () -> new FilterBuilder().configure(10, 0.1).configure(11, 0.1));
  }

  @Test
  void javaSerializationAndKryoWriteTheSameForm() throws Exception {
    FilterBuilder b = new FilterBuilder(1000, 0.01).addAll(new long[] {1, 2, 3});
    byte[] form = kryoBytes(b);
    // version, n, p, count, 3 items, filter length -1
    assertEquals(4 + 8 + 8 + 4 + 3 * 8 + 4, form.length);
    // Java serialization: the same bytes in one block-data record (TC_BLOCKDATA, length)
    byte[] record = new byte[form.length + 2];
    record[0] = 0x77;
    record[1] = (byte) form.length;
    System.arraycopy(form, 0, record, 2, form.length);
    assertTrue(indexOf(javaBytes(b), record) >= 0, "Java serialization does not carry the Kryo form");
    // the unconfigured zero too
    byte[] zero = kryoBytes(new FilterBuilder());
    assertEquals(-1L, java.nio.ByteBuffer.wrap(zero, 4, 8).getLong());
    assertTrue(!kryoRoundTrip(new FilterBuilder()).isConfigured());
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
