// The Java half of scripts/test-python-interop.sh: filters written by real Guava, by Spark's
// sketch (V1 and V2 streams) and by sparkbloom-redis into a real redis-server, each with the
// answers the Java original gives, for python/tests/interop/check_without_jvm.py to compare
// with the Python package's answers. Compiled by the script with javac (single file, no package).
//
//   java JavaFilters streams OUT_DIR      Guava and Spark sketch streams + answers
//   java JavaFilters redis PORT OUT_DIR   filters set in the redis-server on 127.0.0.1:PORT
//
// Files written (all integers little-endian, so numpy reads them with np.fromfile):
//   keys.i64           the probe keys: 10^6 put into every filter, then 10^6 others
//   <name>.bin         a filter's writeTo stream
//   <name>.answers     one byte per probe key: mightContain (1) or not (0)
//   <name>.str.answers the same for the string probes ("k" + key + "é€😀": streams, the first
//                      10^5 keys of each half; redis, the first 1,000)
//   meta.tsv           name, then key=value facts (version written, m, k, strategy)
//   <layout>.offsets.i64  redis: RedisLayout.offsets of every long, then string, probe (k each)
import com.google.common.hash.Funnels;
import io.sparkbloom.redis.RedisBloom;
import io.sparkbloom.redis.RedisLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import org.apache.spark.util.sketch.BloomFilter;

public final class JavaFilters {
  static final int KEYS = 1_000_000;
  static final int STRING_KEYS = 100_000;
  static final int USERS = 50;

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("streams")) {
      streams(Path.of(args[1]));
    } else if (args.length == 3 && args[0].equals("redis")) {
      redis(Integer.parseInt(args[1]), Path.of(args[2]));
    } else {
      throw new IllegalArgumentException("usage: streams OUT_DIR | redis PORT OUT_DIR");
    }
  }

  /** 10^6 keys to put, then 10^6 others (absent but for the rare collision of random longs). */
  static long[] probeKeys() {
    SplittableRandom random = new SplittableRandom(20_261_125L);
    long[] keys = new long[2 * KEYS];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = random.nextLong();
    }
    return keys;
  }

  /** The string probes: the first STRING_KEYS keys of each half, as strings with non-ASCII. */
  static String[] stringKeys(long[] keys) {
    String[] strings = new String[2 * STRING_KEYS];
    for (int i = 0; i < STRING_KEYS; i++) {
      strings[i] = "k" + keys[i] + "é€😀";
      strings[STRING_KEYS + i] = "k" + keys[KEYS + i] + "é€😀";
    }
    return strings;
  }

  static void streams(Path out) throws IOException {
    Files.createDirectories(out);
    long[] keys = probeKeys();
    ByteBuffer buffer = ByteBuffer.allocate(keys.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    buffer.asLongBuffer().put(keys);
    Files.write(out.resolve("keys.i64"), buffer.array());
    String[] strings = stringKeys(keys);
    StringBuilder meta = new StringBuilder();

    // Guava 33, its default strategy (MURMUR128_MITZ_64), longs and UTF-8 strings
    com.google.common.hash.BloomFilter<Long> guava =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), KEYS, 0.01);
    for (int i = 0; i < KEYS; i++) {
      guava.put(keys[i]);
    }
    write(out, "guava", guava::writeTo);
    answers(out, "guava", keys, guava::mightContain);
    com.google.common.hash.BloomFilter<CharSequence> guavaStrings =
        com.google.common.hash.BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), STRING_KEYS, 0.01);
    for (int i = 0; i < STRING_KEYS; i++) {
      guavaStrings.put(strings[i]);
    }
    write(out, "guava-strings", guavaStrings::writeTo);
    stringAnswers(out, "guava-strings", strings, guavaStrings::mightContain);
    meta.append("guava\tjar=").append(jarOf(com.google.common.hash.BloomFilter.class)).append('\n');

    // Spark's sketch: each version explicitly, and what create(n, p) writes by default
    for (BloomFilter.Version version : BloomFilter.Version.values()) {
      String name = "spark-" + version.name().toLowerCase();
      BloomFilter spark = BloomFilter.create(version, KEYS, BloomFilter.optimalNumOfBits(KEYS, 0.01), 0);
      BloomFilter sparkStrings =
          BloomFilter.create(version, STRING_KEYS, BloomFilter.optimalNumOfBits(STRING_KEYS, 0.01), 0);
      for (int i = 0; i < KEYS; i++) {
        spark.putLong(keys[i]);
      }
      for (int i = 0; i < STRING_KEYS; i++) {
        sparkStrings.putString(strings[i]);
      }
      write(out, name, spark::writeTo);
      answers(out, name, keys, spark::mightContainLong);
      write(out, name + "-strings", sparkStrings::writeTo);
      stringAnswers(out, name + "-strings", strings, item -> sparkStrings.mightContainString(item.toString()));
    }
    BloomFilter byDefault = BloomFilter.create(KEYS, 0.01);
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    byDefault.writeTo(stream);
    meta.append("spark-default\tversion=").append(ByteBuffer.wrap(stream.toByteArray()).getInt())
        .append("\tjar=").append(jarOf(BloomFilter.class))
        .append('\n');
    Files.writeString(out.resolve("meta.tsv"), meta.toString(), StandardCharsets.UTF_8);
  }

  /**
   * Per-user filters in Redis, as services keep them: in the helper layout (MITZ_32 offsets over
   * an m that is no multiple of 64) by putAll, and in the Guava layout by storing a filter built
   * with the core library. Every user's layout and the client's answers go to OUT_DIR; the
   * bitmaps stay in the server for the Python side to GET.
   */
  static void redis(int port, Path out) throws IOException {
    Files.createDirectories(out);
    long[] keys = probeKeys();
    RedisLayout helper = RedisLayout.helperCompatible(10_000, 0.001);
    RedisLayout guava = RedisLayout.guavaCompatible(10_000, 0.001);
    StringBuilder meta = new StringBuilder();
    // user u holds 200·u keys of the first half (the last users near or past the filters'
    // capacity, so false positives occur); probes: 20,000 of each half, 1,000 strings of each
    long[] probes = new long[40_000];
    System.arraycopy(keys, 0, probes, 0, 20_000);
    System.arraycopy(keys, KEYS, probes, 20_000, 20_000);
    String[] stringProbes = new String[2_000];
    for (int i = 0; i < 1_000; i++) {
      stringProbes[i] = "k" + keys[i] + "é€😀";
      stringProbes[1_000 + i] = "k" + keys[KEYS + i] + "é€😀";
    }
    try (RedisBloom helperClient = RedisBloom.connect("redis://127.0.0.1:" + port, helper);
        RedisBloom guavaClient = RedisBloom.connect("redis://127.0.0.1:" + port, guava)) {
      for (int user = 1; user <= USERS; user++) {
        long[] items = Arrays.copyOf(keys, 200 * user);
        String helperKey = "seen:helper:" + user;
        helperClient.putAll(helperKey, items);
        helperClient.putAll(helperKey, Arrays.copyOf(stringProbes, 10 * user));
        String guavaKey = "seen:guava:" + user;
        try (io.sparkbloom.BloomFilter filter = guava.newFilter()) {
          filter.putAll(items);
          guavaClient.store(guavaKey, filter);
        }
        for (RedisBloom client : List.of(helperClient, guavaClient)) {
          String key = client == helperClient ? helperKey : guavaKey;
          String file = key.replace(':', '_');
          // the bulk calls (one GET or one script per call), as a service checks candidates
          Set<Long> absent = new HashSet<>();
          for (long item : client.retainAbsent(key, probes)) {
            absent.add(item);
          }
          answers(out, file, probes, item -> !absent.contains(item));
          Set<String> absentStrings = Set.of(client.retainAbsent(key, stringProbes));
          stringAnswers(out, file, stringProbes, item -> !absentStrings.contains(item.toString()));
          // one key per round trip (GETBIT offsets in a script) must give the same answers
          for (int i = 0; i < 40_000; i += 400) {
            if (client.mightContain(key, probes[i]) == absent.contains(probes[i])) {
              throw new IllegalStateException(key + ": mightContain and retainAbsent disagree on " + probes[i]);
            }
          }
          RedisLayout layout = client.layout();
          meta.append(key).append("\tnumBits=").append(layout.bitSize())
              .append("\tnumHashFunctions=").append(layout.numHashFunctions())
              .append("\tstrategy=").append(layout.strategy()).append("\tfile=").append(file)
              .append("\tlayout=").append(client == helperClient ? "helper" : "guava")
              .append("\titems=").append(items.length)
              .append("\tstrings=").append(client == helperClient ? 10 * user : 0).append('\n');
        }
      }
    }
    writeLongs(out.resolve("probes.i64"), probes);
    // the module's own GETBIT offsets of every probe, for the Python offsets to equal
    for (RedisLayout layout : List.of(helper, guava)) {
      String name = layout == helper ? "helper" : "guava";
      long[] offsets = new long[(probes.length + stringProbes.length) * layout.numHashFunctions()];
      int at = 0;
      for (long probe : probes) {
        for (long offset : layout.offsets(probe)) {
          offsets[at++] = offset;
        }
      }
      for (String probe : stringProbes) {
        for (long offset : layout.offsets(probe)) {
          offsets[at++] = offset;
        }
      }
      writeLongs(out.resolve(name + ".offsets.i64"), offsets);
    }
    Files.writeString(out.resolve("meta.tsv"), meta.toString(), StandardCharsets.UTF_8);
  }

  interface StreamWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  static void write(Path out, String name, StreamWriter writer) throws IOException {
    try (OutputStream stream = Files.newOutputStream(out.resolve(name + ".bin"),
        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
      writer.writeTo(stream);
    }
  }

  static void answers(Path out, String name, long[] keys, LongPredicate mightContain) throws IOException {
    byte[] answers = new byte[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = (byte) (mightContain.test(keys[i]) ? 1 : 0);
    }
    Files.write(out.resolve(name + ".answers"), answers);
  }

  static void stringAnswers(Path out, String name, String[] keys, Predicate<CharSequence> mightContain)
      throws IOException {
    byte[] answers = new byte[keys.length];
    for (int i = 0; i < keys.length; i++) {
      answers[i] = (byte) (mightContain.test(keys[i]) ? 1 : 0);
    }
    Files.write(out.resolve(name + ".str.answers"), answers);
  }

  /** The file name of the jar a class was loaded from (which Guava, which Spark). */
  static String jarOf(Class<?> type) {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().getPath()).getFileName().toString();
  }

  static void writeLongs(Path file, long[] values) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    buffer.asLongBuffer().put(values);
    Files.write(file, buffer.array());
  }
}
