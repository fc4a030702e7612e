package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Java-serialization and Kryo streams written by an earlier build (committed as hex in {@code
 * serialized-streams.hex}, generated before the serial proxies and Kryo serializers were shared
 * between the two filter types) still read back, and today's build writes the same bytes.
 *
 * <p>Regenerate only when the serialized form changes on purpose (it is persisted by Spark's
 * {@code saveAsObjectFile}): {@code -Dsparkbloom.writeSerializedFixture=<path>}.
 */
class SerializedFormFixtureTest {

  private static BloomFilter plain() {
    BloomFilter f = BloomFilter.create(100, 0.03);
    f.putAll(new long[] {1, 2, 3, -7});
    f.put("sparkbloom");
    return f;
  }

  private static CountingBloomFilter counting() {
    CountingBloomFilter f = CountingBloomFilter.create(100, 0.03);
    f.add(1);
    f.add(2);
    f.add(2);
    f.add("sparkbloom");
    return f;
  }

  private static byte[] kryo(Object filter) {
    Kryo kryo = new Kryo();
    kryo.setRegistrationRequired(false);
    Output out = new Output(new ByteArrayOutputStream());
    kryo.writeObject(out, filter);
    return out.toBytes();
  }

  private static <T> T fromKryo(byte[] bytes, Class<T> type) {
    return new Kryo().readObject(new Input(bytes), type);
  }

  private static String formatHex(byte[] bytes) {
    StringBuilder hex = new StringBuilder();
    for (byte b : bytes) {
      hex.append(String.format("%02x", b & 0xff));
    }
    return hex.toString();
  }

  private static byte[] parseHex(String hex) {
    byte[] bytes = new byte[hex.length() / 2];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return bytes;
  }

  /** Today's streams, by name. */
  private static Map<String, byte[]> streams() throws IOException {
    Map<String, byte[]> streams = new LinkedHashMap<>();
    try (BloomFilter p = plain();
        CountingBloomFilter c = counting()) {
      streams.put("java.BloomFilter.block", SerializationTest.javaSerialize(p));
      streams.put("java.CountingBloomFilter.block", SerializationTest.javaSerialize(c));
      streams.put("kryo.BloomFilter", kryo(p));
      streams.put("kryo.CountingBloomFilter", kryo(c));
    }
    return streams;
  }

  private static Map<String, byte[]> committed() throws IOException {
    Map<String, byte[]> fixture = new LinkedHashMap<>();
    try (InputStream in =
        SerializedFormFixtureTest.class.getResourceAsStream("serialized-streams.hex")) {
      String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      for (String line : text.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          String[] parts = line.trim().split(" ");
          fixture.put(parts[0], parseHex(parts[1]));
        }
      }
    }
    return fixture;
  }

  @Test
  void streamsWrittenBeforeStillReadAndTodaysAreByteIdentical() throws Exception {
    String target = System.getProperty("sparkbloom.writeSerializedFixture");
    if (target != null) {
      StringBuilder text =
          new StringBuilder("# name hex (SerializedFormFixtureTest; do not edit by hand)\n");
      for (Map.Entry<String, byte[]> e : streams().entrySet()) {
        text.append(e.getKey()).append(' ').append(formatHex(e.getValue()));
        text.append('\n');
      }
      Files.writeString(Path.of(target), text);
    }
    Map<String, byte[]> fixture = committed();
    assertEquals(streams().keySet(), fixture.keySet());
    try (BloomFilter p = plain();
        CountingBloomFilter c = counting();
        BloomFilter javaBlockPlain =
            (BloomFilter) SerializationTest.javaDeserialize(fixture.get("java.BloomFilter.block"));
        CountingBloomFilter javaBlockCounting =
            (CountingBloomFilter)
                SerializationTest.javaDeserialize(fixture.get("java.CountingBloomFilter.block"));
        BloomFilter kryoPlain = fromKryo(fixture.get("kryo.BloomFilter"), BloomFilter.class);
        CountingBloomFilter kryoCounting =
            fromKryo(fixture.get("kryo.CountingBloomFilter"), CountingBloomFilter.class)) {
      assertEquals(p, javaBlockPlain);
      assertEquals(p, kryoPlain);
      assertEquals(c, javaBlockCounting);
      assertEquals(c, kryoCounting);
      assertEquals(2, javaBlockCounting.count(2));
    }
    for (Map.Entry<String, byte[]> e : streams().entrySet()) {
      assertArrayEquals(fixture.get(e.getKey()), e.getValue(), e.getKey());
    }
  }
}
