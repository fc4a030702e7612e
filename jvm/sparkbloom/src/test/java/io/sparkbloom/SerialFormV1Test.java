package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Java-serialization streams of {@link BloomFilter} in the serial proxy's array form (one
 * unshared {@code byte[]}, {@link SerialProxy}), written by main at 78b5457 before {@link Ser}
 * switched to the block-data form and committed in {@code serialized-streams-v1.hex}, still read
 * back to the same filters: a dense one (1,200 bytes, more than one stream block), a sparse one,
 * and a list holding a filter twice followed by another object.
 */
class SerialFormV1Test {

  static Map<String, byte[]> golden() throws IOException {
    Map<String, byte[]> golden = new HashMap<>();
    try (InputStream in = SerialFormV1Test.class.getResourceAsStream("serialized-streams-v1.hex")) {
      String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      for (String line : text.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          String[] parts = line.trim().split(" ");
          byte[] bytes = new byte[parts[1].length() / 2];
          for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(parts[1].substring(2 * i, 2 * i + 2), 16);
          }
          golden.put(parts[0], bytes);
        }
      }
    }
    return golden;
  }

  /** The keys the generator put: (i + salt) * the golden ratio constant. */
  private static long[] keys(int n, long salt) {
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = (i + salt) * 0x9E3779B97F4A7C15L;
    }
    return keys;
  }

  @Test
  void arrayFormStreamsStillReadBackIdentically() throws Exception {
    Map<String, byte[]> golden = golden();
    try (BloomFilter dense = BloomFilter.create(1000, 0.01);
        BloomFilter sparse = BloomFilter.create(10_000, 0.001)) {
      dense.putAll(keys(1000, 1));
      sparse.putAll(keys(200, 2));
      // Today's encoder gives the same FORMAT.md bytes: the filters are the generator's.
      assertArrayEquals(golden.get("dense.format"), dense.toByteArray());
      assertArrayEquals(golden.get("sparse.format"), sparse.toByteArray());
      assertEquals(0, golden.get("dense.format")[6], "dense");
      assertEquals(1, golden.get("sparse.format")[6], "sparse");

      try (BloomFilter back = (BloomFilter) SerializationTest.javaDeserialize(golden.get("java.dense"))) {
        assertEquals(dense, back);
        assertArrayEquals(golden.get("dense.format"), back.toByteArray());
      }
      try (BloomFilter back =
          (BloomFilter) SerializationTest.javaDeserialize(golden.get("java.sparse"))) {
        assertEquals(sparse, back);
      }
      // Through a stream whose available() is 0, as Spark's are.
      try (BloomFilter back =
          (BloomFilter) SerializationTest.javaDeserializeStingy(golden.get("java.dense"))) {
        assertEquals(dense, back);
      }
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(golden.get("java.list")))) {
        List<?> list = (List<?>) in.readObject();
        assertEquals(3, list.size());
        assertEquals(dense, list.get(0));
        assertEquals(sparse, list.get(1));
        assertSame(list.get(0), list.get(2), "a back-reference resolves to the same filter");
        assertEquals(42, in.readObject(), "the stream stays in step after the filters");
        ((BloomFilter) list.get(0)).close();
        ((BloomFilter) list.get(1)).close();
      }
      // Today's stream of the same filter is the block-data form, and reads back too.
      byte[] today = SerializationTest.javaSerialize(dense);
      assertTrue(!java.util.Arrays.equals(golden.get("java.dense"), today));
      try (BloomFilter back = (BloomFilter) SerializationTest.javaDeserialize(today)) {
        assertEquals(dense, back);
      }
    }
  }
}
