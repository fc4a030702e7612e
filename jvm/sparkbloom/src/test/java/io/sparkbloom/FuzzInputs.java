package io.sparkbloom;

import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * Deterministic fuzz inputs for {@link DecoderFuzzMain}: real encodings (tests/golden's FORMAT
 * and Guava files, and Java- and Kryo-serialized filters made from them) mutated the way
 * hostile or damaged bytes look. Input {@code i} of a path depends only on (seed, path, i), so
 * any one input can be regenerated from its index.
 *
 * <p>A checksum rejects almost every random FORMAT mutation at the last step, so half of the
 * FORMAT inputs get their CRC-32 recomputed after mutating: those reach the payload decoders
 * with every header field under attack.
 */
final class FuzzInputs {
  private final List<byte[]> formatSeeds = new ArrayList<>();
  private final List<byte[]> guavaSeeds = new ArrayList<>();
  private final List<byte[]> javaSeeds = new ArrayList<>();
  private final List<byte[]> kryoSeeds = new ArrayList<>();
  private final List<byte[]> countingSeeds = new ArrayList<>();
  private final List<byte[]> countingJavaSeeds = new ArrayList<>();

  /** Seeds from {@code golden} (the tests/golden folder, corrupt/ included). */
  FuzzInputs(Path golden) throws IOException {
    for (Path p : list(golden)) {
      String name = p.getFileName().toString();
      if (name.endsWith(".sbloom")) {
        formatSeeds.add(Files.readAllBytes(p));
      } else if (name.endsWith(".guava")) {
        guavaSeeds.add(Files.readAllBytes(p));
      }
    }
    if (formatSeeds.isEmpty() || guavaSeeds.isEmpty()) {
      throw new IOException("no .sbloom/.guava seeds under " + golden);
    }
    // Java and Kryo streams of the valid filters: alone, in an Object[] as saveAsObjectFile
    // writes records, and two in a list.
    for (byte[] format : formatSeeds) {
      try (CountingBloomFilter c = CountingBloomFilter.fromByteArray(format)) {
        countingSeeds.add(format);
        countingJavaSeeds.add(javaStream(c));
        countingJavaSeeds.add(javaStream(new Object[] {"user-1", c}));
        continue;
      } catch (CorruptFilterException notCounting) {
        // a plain filter's bytes, or a corrupt/ seed
      }
      BloomFilter f;
      try {
        f = BloomFilter.fromByteArray(format);
      } catch (CorruptFilterException e) {
        continue; // a corrupt/ seed: mutated as FORMAT bytes, not wrapped
      }
      javaSeeds.add(javaStream(f));
      javaSeeds.add(javaStream(new Object[] {"user-1", f}));
      javaSeeds.add(javaStream(new ArrayList<>(List.of(f, f.copy()))));
      kryoSeeds.add(kryoRecord(format));
      f.close();
    }
  }

  private static List<Path> list(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).sorted().forEach(out::add);
    }
    return out;
  }

  static byte[] javaStream(Object o) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(o);
      }
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What {@link BloomFilterKryoSerializer#write} writes: a varint length, then the bytes. */
  static byte[] kryoRecord(byte[] format) {
    Output out = new Output(format.length + 5, -1);
    out.writeInt(format.length, true);
    out.writeBytes(format);
    return out.toBytes();
  }

  // ---- per-path inputs ----------------------------------------------------------------------

  /** FORMAT v1 bytes: a mutated seed (half with a recomputed CRC), or random bytes. */
  byte[] format(SplittableRandom r) {
    return format(r, formatSeeds);
  }

  /** A counting filter's FORMAT bytes (§10), mutated as {@link #format(SplittableRandom)}. */
  byte[] countingFormat(SplittableRandom r) {
    return format(r, countingSeeds);
  }

  private static byte[] format(SplittableRandom r, List<byte[]> formatSeeds) {
    if (r.nextInt(32) == 0) {
      return randomBytes(r, r.nextInt(80));
    }
    byte[] b = pick(r, formatSeeds);
    if (r.nextInt(4) == 0 && b.length > 28) {
      // a few bytes of the payload only, checksum fixed: mostly valid filters, whose round trip
      // is then checked (and sparse streams whose codes no longer add up)
      b = b.clone();
      for (int i = 1 + r.nextInt(3); i > 0; i--) {
        b[24 + r.nextInt(b.length - 28)] ^= (byte) (1 << r.nextInt(8));
      }
      fixCrc(b);
      return b;
    }
    if (r.nextInt(4) == 0) {
      b = formatHeaderMutation(r, b);
    }
    b = mutate(r, b, formatSeeds, false);
    if (r.nextBoolean()) {
      fixCrc(b);
    }
    return b;
  }

  /** Guava writeTo bytes: a mutated seed, or random bytes. */
  byte[] guava(SplittableRandom r) {
    if (r.nextInt(32) == 0) {
      return randomBytes(r, r.nextInt(40));
    }
    byte[] b = pick(r, guavaSeeds).clone();
    if (r.nextInt(4) == 0 && b.length >= 6) {
      // strategy, k, word count (big-endian int): the fields a reader sizes itself by
      switch (r.nextInt(3)) {
        case 0:
          b[0] = interestingByte(r);
          break;
        case 1:
          b[1] = interestingByte(r);
          break;
        default:
          put(b, 2, interestingInt(r), 4, true);
          break;
      }
    }
    return mutate(r, b, guavaSeeds, true);
  }

  /**
   * A Java serialization stream carrying filters: either well-formed framing around mutated
   * FORMAT bytes (reaching the serial proxy's decoder), or a mutated stream of real filters.
   */
  byte[] java(SplittableRandom r) {
    if (r.nextBoolean()) {
      Ser proxy = new Ser(format(r));
      switch (r.nextInt(3)) {
        case 0:
          return javaStream(proxy);
        case 1:
          return javaStream(new Object[] {"user-1", proxy});
        default:
          return javaStream(new ArrayList<>(List.of(proxy, proxy)));
      }
    }
    return mutate(r, pick(r, javaSeeds), javaSeeds, true);
  }

  /**
   * A Java serialization stream carrying counting filters: well-formed framing around mutated
   * counting bytes, or a mutated stream of real ones (its length among the targets).
   */
  byte[] countingJava(SplittableRandom r) {
    if (r.nextBoolean()) {
      CountingSer proxy = new CountingSer(countingFormat(r));
      return r.nextBoolean() ? javaStream(proxy) : javaStream(new Object[] {"user-1", proxy});
    }
    return mutate(r, pick(r, countingJavaSeeds), countingJavaSeeds, true);
  }

  /** Kryo bytes for {@link BloomFilterKryoSerializer#read}: a length varint and FORMAT bytes. */
  byte[] kryo(SplittableRandom r) {
    switch (r.nextInt(4)) {
      case 0:
      case 1:
        return kryoRecord(format(r));
      case 2: {
        // any length varint (negative and huge ones included) before real bytes
        byte[] format = pick(r, formatSeeds);
        Output out = new Output(format.length + 5, -1);
        out.writeInt(r.nextBoolean() ? interestingInt(r) : r.nextInt(), true);
        out.writeBytes(format, 0, r.nextInt(format.length + 1));
        return out.toBytes();
      }
      default:
        return mutate(r, pick(r, kryoSeeds), kryoSeeds, false);
    }
  }

  // ---- mutations ----------------------------------------------------------------------------

  private static final long[] INTERESTING_LONGS = {
    0, 1, 7, 8, 9, 63, 64, 65, 128, 4096, 143_808, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL,
    1L << 31, (1L << 31) - 64, 1L << 32, (1L << 32) + 64, 1L << 33, 1L << 34, 1L << 40,
    (1L << 43) - 64, 1L << 43, (1L << 43) + 64, 1L << 44, 1L << 62, Long.MAX_VALUE - 63,
    Long.MAX_VALUE, Long.MIN_VALUE, -1, -64, -9
  };

  private static final int[] INTERESTING_INTS = {
    0, 1, -1, 2, 8, 64, 127, 128, 255, 256, 1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 28,
    (1 << 31) - 1, 1 << 31, Integer.MAX_VALUE - 8, Integer.MAX_VALUE - 7, -2, -65536, 33554432
  };

  static long interestingLong(SplittableRandom r) {
    long v = INTERESTING_LONGS[r.nextInt(INTERESTING_LONGS.length)];
    return r.nextInt(4) == 0 ? v + r.nextInt(-2, 3) : v;
  }

  static int interestingInt(SplittableRandom r) {
    int v = INTERESTING_INTS[r.nextInt(INTERESTING_INTS.length)];
    return r.nextInt(4) == 0 ? v + r.nextInt(-2, 3) : v;
  }

  private static byte interestingByte(SplittableRandom r) {
    // 0 to 5: every strategy ordinal and format version, BLOCKED (4, version 5) included.
    final int[] bytes = {0, 1, 2, 3, 4, 5, 0x7F, 0x80, 0xFF, 0x40, 63, 64, 65, 10};
    return (byte) (r.nextInt(3) == 0 ? r.nextInt(256) : bytes[r.nextInt(bytes.length)]);
  }

  /** One FORMAT header field (offsets of FORMAT.md 1.1) set to a value a reader must survive. */
  private static byte[] formatHeaderMutation(SplittableRandom r, byte[] seed) {
    byte[] b = seed.length >= 24 ? seed.clone() : Arrays.copyOf(seed, 24);
    int field = r.nextInt(6);
    if (field < 4) {
      b[4 + field] = interestingByte(r); // version, strategy, encoding or numHashFunctions
    } else if (field == 4) {
      put(b, 8, interestingLong(r), 8, false); // numBits
    } else {
      put(b, 16, interestingLong(r), 8, false); // payloadLength
      if (b.length >= 33 && r.nextBoolean()) {
        put(b, 24, interestingLong(r), 8, false); // sparse: the set-bit count
      }
    }
    return b;
  }

  /** 1 to 4 generic mutations of a copy of {@code seed}. */
  private static byte[] mutate(SplittableRandom r, byte[] seed, List<byte[]> corpus, boolean bigEndian) {
    byte[] b = seed.clone();
    int rounds = 1 + r.nextInt(4);
    for (int i = 0; i < rounds; i++) {
      b = mutateOnce(r, b, corpus, bigEndian);
    }
    return b;
  }

  private static byte[] mutateOnce(SplittableRandom r, byte[] b, List<byte[]> corpus, boolean bigEndian) {
    int n = b.length;
    switch (r.nextInt(11)) {
      case 0: // flip one bit
        if (n > 0) {
          b[r.nextInt(n)] ^= (byte) (1 << r.nextInt(8));
        }
        return b;
      case 1: // a random byte
        if (n > 0) {
          b[r.nextInt(n)] = (byte) r.nextInt(256);
        }
        return b;
      case 2: // an interesting byte, biased to the first 40 bytes (headers, lengths)
        if (n > 0) {
          b[r.nextBoolean() ? r.nextInt(Math.min(n, 40)) : r.nextInt(n)] = interestingByte(r);
        }
        return b;
      case 3: // an interesting int
        putInteresting(r, b, 4, bigEndian);
        return b;
      case 4: // an interesting long
        putInteresting(r, b, 8, bigEndian);
        return b;
      case 5: // truncate
        return Arrays.copyOf(b, n == 0 ? 0 : r.nextInt(n));
      case 6: { // append random bytes
        byte[] tail = randomBytes(r, 1 + r.nextInt(16));
        byte[] out = Arrays.copyOf(b, n + tail.length);
        System.arraycopy(tail, 0, out, n, tail.length);
        return out;
      }
      case 7: { // delete a range
        if (n == 0) {
          return b;
        }
        int from = r.nextInt(n);
        int len = 1 + r.nextInt(Math.min(16, n - from));
        byte[] out = new byte[n - len];
        System.arraycopy(b, 0, out, 0, from);
        System.arraycopy(b, from + len, out, from, n - from - len);
        return out;
      }
      case 8: { // insert random bytes
        int at = r.nextInt(n + 1);
        byte[] ins = randomBytes(r, 1 + r.nextInt(16));
        byte[] out = new byte[n + ins.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(ins, 0, out, at, ins.length);
        System.arraycopy(b, at, out, at + ins.length, n - at);
        return out;
      }
      case 9: { // splice: our head, another seed's tail
        byte[] other = corpus.get(r.nextInt(corpus.size()));
        int cut = r.nextInt(n + 1);
        int from = r.nextInt(other.length + 1);
        byte[] out = Arrays.copyOf(b, cut + other.length - from);
        System.arraycopy(other, from, out, cut, other.length - from);
        return out;
      }
      default: // overwrite a run with one value (zeros, ones: long runs of set or clear bits)
        if (n > 0) {
          int from = r.nextInt(n);
          Arrays.fill(b, from, from + r.nextInt(Math.min(256, n - from) + 1), r.nextBoolean() ? 0 : (byte) 0xFF);
        }
        return b;
    }
  }

  /**
   * Writes the CRC-32 where the header says the trailer is (or over all but the last 4 bytes
   * when the header's payloadLength does not fit), so mutations get past the checksum.
   */
  static void fixCrc(byte[] b) {
    if (b.length < 28) {
      return;
    }
    long payload = getLongLE(b, 16);
    int end = payload >= 0 && payload <= b.length - 28 ? (int) (24 + payload) : b.length - 4;
    CRC32 crc = new CRC32();
    crc.update(b, 0, end);
    put(b, end, (int) crc.getValue(), 4, false);
  }

  private static byte[] pick(SplittableRandom r, List<byte[]> seeds) {
    return seeds.get(r.nextInt(seeds.size()));
  }

  private static byte[] randomBytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    if (n >= 4 && r.nextBoolean()) {
      b[0] = 'S';
      b[1] = 'B';
      b[2] = 'L';
      b[3] = 'M';
    }
    return b;
  }

  /**
   * An interesting int ({@code width} 4) or long (8) at a random offset within the first 48 bytes
   * of {@code b}, if it is that long.
   */
  private static void putInteresting(SplittableRandom r, byte[] b, int width, boolean bigEndian) {
    if (b.length >= width) {
      int off = r.nextInt(Math.min(b.length, 48) - width + 1);
      put(b, off, width == 4 ? interestingInt(r) : interestingLong(r), width, bigEndian);
    }
  }

  /** The low {@code width} bytes of {@code v} at {@code off}, big- or little-endian. */
  static void put(byte[] b, int off, long v, int width, boolean bigEndian) {
    for (int i = 0; i < width; i++) {
      b[off + i] = (byte) (v >>> (8 * (bigEndian ? width - 1 - i : i)));
    }
  }

  static long getLongLE(byte[] b, int off) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xFF);
    }
    return v;
  }
}
