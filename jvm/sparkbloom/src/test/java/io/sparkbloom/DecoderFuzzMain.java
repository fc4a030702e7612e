package io.sparkbloom;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * JVM-side fuzz of every decoder of untrusted bytes, run in a child JVM by {@link
 * DecoderFuzzTest} (or by hand for the long run):
 *
 * <pre>
 * java -Xcheck:jni -Xmx128m -cp TEST_CLASSPATH io.sparkbloom.DecoderFuzzMain inputs=1000000 [first=0] [seed=1]
 *     [paths=fromByteArray,readFrom,fromGuavaByteArray,readGuava,java,kryo,countingFromByteArray,countingJava]
 *     [golden=tests/golden]
 *     [progress=FILE]
 * java ... io.sparkbloom.DecoderFuzzMain replay=PATH:INDEX [seed=1]
 * </pre>
 *
 * <p>{@code first=} is the index of the first input, so that one path's inputs can be shared out
 * among processes ({@code first=0 inputs=500000} and {@code first=500000 inputs=500000} together
 * are {@code inputs=1000000}).
 *
 * <p>The contract checked per input: either a valid filter, which re-encodes and decodes to an
 * equal filter (and, for Guava bytes, re-encodes to exactly the input), or the documented
 * exception of the path: {@link CorruptFilterException} for {@code fromByteArray},
 * {@code readFrom}, {@code fromGuavaByteArray}, {@code readGuava} and the counting filter's
 * {@code fromByteArray} (their streams never fail, so every failure is the bytes'); an {@code
 * IOException} or {@code ClassNotFoundException} for Java deserialization (of either filter); a {@code KryoException} (caused by nothing or an
 * {@code IOException}) for Kryo. Anything else (an {@code Error}, an undocumented
 * {@code RuntimeException}, a round trip that changes the filter) is a finding. A crash or a
 * hang ends the child; the index of the input being decoded is then in the progress file (a
 * memory-mapped file survives an abort of the process), and {@code replay=} regenerates it.
 *
 * <p>Java deserialization runs under the filter a careful reader installs ({@code maxarray}
 * at most the stream's length, {@code maxdepth}, only the classes these streams carry): the
 * JDK's {@code ObjectInputStream} allocates any array length a stream declares before reading
 * it, which no filter class can prevent, so without it the run would measure the JDK.
 *
 * <p>On the Java path, an undocumented exception that ObjectInputStream throws before any
 * sparkbloom frame is on the stack (e.g. {@code NegativeArraySizeException} for a negative
 * {@code Object[]} length in the outer stream) is counted as {@code jdk:Name}, not as a finding:
 * it is the JDK's behaviour for any class.
 *
 * <p>Prints one {@code FUZZ} line per path (inputs, valid, each exception type's count), a
 * {@code FINDING} line per undocumented outcome type and up to {@value #REPRODUCERS} of its
 * shortest inputs as {@code REPRO} lines with hex, then {@code FUZZ-DONE findings=N}.
 */
public final class DecoderFuzzMain {
  private DecoderFuzzMain() {}

  /** Every path, the default of {@code paths=}. */
  static final String PATHS =
      "fromByteArray,readFrom,fromGuavaByteArray,readGuava,java,kryo,countingFromByteArray,countingJava";

  /** Reproducers kept per finding type: the shortest inputs. */
  static final int REPRODUCERS = 3;

  /**
   * Valid filters above this many bits (32 MiB) skip the round trip: a 45-byte input can declare
   * a 4 GiB filter, and the round trip's byte arrays must fit the child's 128 MiB heap (a
   * {@code toGuavaByteArray()} that does not fit is the heap's limit, not a decoder's fault).
   */
  static final long ROUND_TRIP_MAX_BITS = 1L << 28;

  enum Decoder {
    FROM_BYTE_ARRAY("fromByteArray"),
    READ_FROM("readFrom"),
    FROM_GUAVA_BYTE_ARRAY("fromGuavaByteArray"),
    READ_GUAVA("readGuava"),
    JAVA("java"),
    KRYO("kryo"),
    COUNTING_FROM_BYTE_ARRAY("countingFromByteArray"),
    COUNTING_JAVA("countingJava");

    final String label;

    Decoder(String label) {
      this.label = label;
    }

    static Decoder of(String label) {
      for (Decoder d : values()) {
        if (d.label.equals(label)) {
          return d;
        }
      }
      throw new IllegalArgumentException("unknown path " + label + "; paths: " + Arrays.toString(values()));
    }

    boolean isJava() {
      return this == JAVA || this == COUNTING_JAVA;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** A valid decode whose round trip broke a law (not equal, bytes not reproduced, ...). */
  static final class ContractViolation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ContractViolation(String message) {
      super(message);
    }
  }

  /** Counts of one path. */
  static final class Tally {
    final Decoder decoder;
    long inputs;
    long valid;
    long validWithoutRoundTrip;
    final Map<String, Long> documented = new TreeMap<>();
    final Map<String, Finding> findings = new TreeMap<>();

    Tally(Decoder decoder) {
      this.decoder = decoder;
    }
  }

  static final class Finding {
    long count;
    String firstTrace;
    final List<long[]> shortest = new ArrayList<>(); // {length, index}
  }

  // ---- main ---------------------------------------------------------------------------------

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new TreeMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected key=value, got " + a);
      }
      opts.put(a.substring(0, eq), a.substring(eq + 1));
    }
    long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
    Path golden = Paths.get(opts.getOrDefault("golden", TestSupport.repoRoot().resolve("tests/golden").toString()));
    FuzzInputs inputs = new FuzzInputs(golden);
    DecoderFuzzMain.Runner runner = new Runner(inputs, seed);

    if (opts.containsKey("replay")) {
      String[] pi = opts.get("replay").split(":");
      Decoder d = Decoder.of(pi[0]);
      long index = Long.parseLong(pi[1]);
      byte[] input = runner.input(d, index);
      System.out.println("INPUT path=" + d + " index=" + index + " len=" + input.length + " hex=" + hex(input));
      try {
        runner.decodeAndCheck(d, input);
        System.out.println("OUTCOME valid");
      } catch (Throwable t) {
        System.out.println("OUTCOME " + outcomeName(d, t) + (documented(d, t) ? " (documented)" : " (FINDING)"));
        t.printStackTrace(System.out);
      }
      return;
    }

    long count = Long.parseLong(opts.getOrDefault("inputs", "1000"));
    long first = Long.parseLong(opts.getOrDefault("first", "0"));
    List<Decoder> decoders = new ArrayList<>();
    for (String p : opts.getOrDefault("paths", PATHS).split(",")) {
      decoders.add(Decoder.of(p.trim()));
    }
    MappedByteBuffer progress = null;
    if (opts.containsKey("progress")) {
      try (FileChannel ch = FileChannel.open(Paths.get(opts.get("progress")),
          StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        progress = ch.map(FileChannel.MapMode.READ_WRITE, 0, 16);
      }
    }
    long findings = 0;
    for (Decoder d : decoders) {
      Tally t = runner.run(d, first, count, progress);
      print(t, runner);
      findings += t.findings.values().stream().mapToLong(f -> f.count).sum();
    }
    System.out.println("FUZZ-DONE findings=" + findings);
  }

  private static void print(Tally t, Runner runner) {
    StringBuilder line = new StringBuilder("FUZZ path=" + t.decoder + " inputs=" + t.inputs + " valid=" + t.valid
        + " (round trip skipped above 2^28 bits: " + t.validWithoutRoundTrip + ")");
    t.documented.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
    t.findings.forEach((k, v) -> line.append(" FINDING:").append(k).append('=').append(v.count));
    System.out.println(line);
    t.findings.forEach((type, f) -> {
      System.out.println("FINDING path=" + t.decoder + " type=" + type + " count=" + f.count);
      System.out.println(indent(f.firstTrace));
      for (long[] li : f.shortest) {
        byte[] input = runner.input(t.decoder, li[1]);
        System.out.println("REPRO path=" + t.decoder + " type=" + type + " index=" + li[1] + " len=" + li[0]
            + " hex=" + (input.length <= 512 ? hex(input) : hex(Arrays.copyOf(input, 64)) + "... (replay=" + t.decoder + ":" + li[1] + ")"));
      }
    });
    System.out.flush();
  }

  // ---- the run ------------------------------------------------------------------------------

  static final class Runner {
    private final FuzzInputs inputs;
    private final long seed;
    private final Kryo kryo;
    private final BloomFilterKryoSerializer kryoSerializer = new BloomFilterKryoSerializer();

    Runner(FuzzInputs inputs, long seed) {
      this.inputs = inputs;
      this.seed = seed;
      this.kryo = new Kryo();
      // as Spark's chill instantiator: no constructor needed
      kryo.setInstantiatorStrategy(new Kryo.DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
      if (!(kryo.getSerializer(BloomFilter.class) instanceof BloomFilterKryoSerializer)) {
        throw new IllegalStateException("BloomFilter's default Kryo serializer is not BloomFilterKryoSerializer");
      }
    }

    /** Input {@code index} of {@code d}: a function of (seed, path, index) only. */
    byte[] input(Decoder d, long index) {
      SplittableRandom r = new SplittableRandom(mix(mix(seed + d.ordinal()) + index));
      switch (d) {
        case FROM_BYTE_ARRAY:
        case READ_FROM:
          return inputs.format(r);
        case FROM_GUAVA_BYTE_ARRAY:
        case READ_GUAVA:
          return inputs.guava(r);
        case JAVA:
          return inputs.java(r);
        case COUNTING_FROM_BYTE_ARRAY:
          return inputs.countingFormat(r);
        case COUNTING_JAVA:
          return inputs.countingJava(r);
        default:
          return inputs.kryo(r);
      }
    }

    Tally run(Decoder d, long first, long count, MappedByteBuffer progress) {
      Tally t = new Tally(d);
      for (long i = first; i < first + count; i++) {
        byte[] input = input(d, i);
        if (progress != null) {
          progress.putLong(0, d.ordinal());
          progress.putLong(8, i);
        }
        t.inputs++;
        try {
          if (decodeAndCheck(d, input)) {
            t.valid++;
          } else {
            t.valid++;
            t.validWithoutRoundTrip++;
          }
        } catch (Throwable e) {
          String name = outcomeName(d, e);
          if (documented(d, e)) {
            t.documented.merge(name, 1L, Long::sum);
          } else if (d.isJava() && !reachesSparkbloom(e)) {
            // thrown by ObjectInputStream before any sparkbloom code ran: the JDK's, not ours
            t.documented.merge("jdk:" + name, 1L, Long::sum);
          } else {
            Finding f = t.findings.computeIfAbsent(name, k -> new Finding());
            f.count++;
            if (f.firstTrace == null) {
              f.firstTrace = "first: index=" + i + " len=" + input.length + "\n" + trace(e);
            }
            f.shortest.add(new long[] {input.length, i});
            f.shortest.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[1]));
            if (f.shortest.size() > REPRODUCERS) {
              f.shortest.remove(REPRODUCERS);
            }
          }
        }
      }
      return t;
    }

    /**
     * Decodes {@code input} through {@code d} and checks the round trip of every filter it
     * yields; returns false if a filter was too large for the round trip. Throws what the
     * decoder threw, or a {@link ContractViolation}.
     */
    boolean decodeAndCheck(Decoder d, byte[] input) throws Exception {
      if (d == Decoder.COUNTING_FROM_BYTE_ARRAY || d == Decoder.COUNTING_JAVA) {
        Object decoded =
            d == Decoder.COUNTING_JAVA ? javaRead(input) : CountingBloomFilter.fromByteArray(input);
        List<CountingBloomFilter> filters = new ArrayList<>();
        collectFilters(decoded, filters, CountingBloomFilter.class);
        boolean roundTripped = true;
        for (CountingBloomFilter f : filters) {
          try (f) {
            roundTripped &= roundTrip(f);
          }
        }
        return roundTripped;
      }
      List<BloomFilter> filters = new ArrayList<>();
      try {
        switch (d) {
          case FROM_BYTE_ARRAY:
            filters.add(BloomFilter.fromByteArray(input));
            break;
          case READ_FROM: {
            int consumed = readOne(input, BloomFilter::readFrom, filters);
            try (BloomFilter exact = BloomFilter.fromByteArray(Arrays.copyOf(input, consumed))) {
              if (!exact.equals(filters.get(0))) {
                throw new ContractViolation("readFrom and fromByteArray of the consumed bytes differ");
              }
            } catch (CorruptFilterException e) {
              throw new ContractViolation("readFrom accepted " + consumed + " bytes that fromByteArray rejects: " + e.getMessage());
            }
            break;
          }
          case FROM_GUAVA_BYTE_ARRAY:
            filters.add(BloomFilter.fromGuavaByteArray(input));
            break;
          case READ_GUAVA:
            input = Arrays.copyOf(input, readOne(input, BloomFilter::readGuava, filters)); // what it consumed
            break;
          case JAVA:
            collectFilters(javaRead(input), filters, BloomFilter.class);
            break;
          default:
            // the serializer itself, as Kryo calls it once it has resolved the class
            filters.add(kryoSerializer.read(kryo, new Input(input), BloomFilter.class));
            break;
        }
        boolean roundTripped = true;
        for (BloomFilter f : filters) {
          roundTripped &= roundTrip(f, d == Decoder.FROM_GUAVA_BYTE_ARRAY || d == Decoder.READ_GUAVA ? input : null);
        }
        return roundTripped;
      } finally {
        for (BloomFilter f : filters) {
          f.close();
        }
      }
    }

    /** A decoder of one filter from a stream. */
    interface StreamDecoder {
      BloomFilter read(InputStream in) throws IOException;
    }

    /** Reads one filter of {@code input} with {@code decoder} into {@code filters}: the bytes it consumed. */
    private static int readOne(byte[] input, StreamDecoder decoder, List<BloomFilter> filters)
        throws IOException {
      ByteArrayInputStream in = new ByteArrayInputStream(input);
      filters.add(decoder.read(in));
      return input.length - in.available();
    }

    private static Object javaRead(byte[] input) throws IOException, ClassNotFoundException {
      ObjectInputFilter filter = ObjectInputFilter.Config.createFilter(
          "maxarray=" + input.length + ";maxdepth=20;io.sparkbloom.*;java.lang.*;java.util.*;!*");
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(input))) {
        in.setObjectInputFilter(filter);
        return in.readObject();
      }
    }

    private static <T> void collectFilters(Object o, List<T> out, Class<T> type) {
      if (type.isInstance(o)) {
        out.add(type.cast(o));
      } else if (o instanceof Object[]) {
        for (Object e : (Object[]) o) {
          collectFilters(e, out, type);
        }
      } else if (o instanceof Collection) {
        for (Object e : (Collection<?>) o) {
          collectFilters(e, out, type);
        }
      }
    }

    /** A counting filter's round trip through its bytes: an equal filter. */
    private static boolean roundTrip(CountingBloomFilter f) throws CorruptFilterException {
      if (f.bitSize() > ROUND_TRIP_MAX_BITS) {
        return false;
      }
      try (CountingBloomFilter back = CountingBloomFilter.fromByteArray(f.toByteArray())) {
        if (!back.equals(f)) {
          throw new ContractViolation("a counting filter's bytes decode to a different filter " + f);
        }
      }
      return true;
    }

    /** Re-encode and decode: an equal filter; Guava bytes re-encode to exactly the input. */
    private static boolean roundTrip(BloomFilter f, byte[] guavaInput) throws CorruptFilterException {
      if (f.bitSize() > ROUND_TRIP_MAX_BITS) {
        return false;
      }
      try (BloomFilter back = BloomFilter.fromByteArray(f.toByteArray())) {
        if (!back.equals(f)) {
          throw new ContractViolation("fromByteArray(toByteArray()) differs from the decoded filter " + f);
        }
      }
      if (f.bitSize() % 64 != 0) {
        return true; // format v2 (a Redis helper's m): Guava's stream holds whole words only
      }
      if (f.strategy() != Strategy.MURMUR128_MITZ_32 && f.strategy() != Strategy.MURMUR128_MITZ_64) {
        return true; // Spark's and BLOCKED: Guava's stream cannot hold them (writers refuse)
      }
      byte[] guava = f.toGuavaByteArray();
      if (guavaInput != null && !Arrays.equals(guava, guavaInput)) {
        throw new ContractViolation("toGuavaByteArray() does not reproduce the Guava bytes read");
      }
      try (BloomFilter back = BloomFilter.fromGuavaByteArray(guava)) {
        if (!back.equals(f)) {
          throw new ContractViolation("fromGuavaByteArray(toGuavaByteArray()) differs from " + f);
        }
      }
      return true;
    }
  }

  // ---- outcomes -----------------------------------------------------------------------------

  /** Whether {@code t} is what {@code d} documents for bad bytes. */
  static boolean documented(Decoder d, Throwable t) {
    switch (d) {
      case FROM_BYTE_ARRAY:
      case READ_FROM:
      case FROM_GUAVA_BYTE_ARRAY:
      case READ_GUAVA:
      case COUNTING_FROM_BYTE_ARRAY:
        return t instanceof CorruptFilterException;
      case JAVA:
      case COUNTING_JAVA:
        return t instanceof IOException || t instanceof ClassNotFoundException;
      default:
        return t instanceof KryoException && (t.getCause() == null || t.getCause() instanceof IOException);
    }
  }

  /**
   * Whether sparkbloom code (not this harness) is on the stack of {@code t} or of a cause:
   * Java deserialization throws from the JDK's {@code ObjectInputStream} for streams whose
   * framing is broken before our serial proxy is ever reached.
   */
  static boolean reachesSparkbloom(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ContractViolation) {
        return true;
      }
      for (StackTraceElement e : c.getStackTrace()) {
        String cls = e.getClassName();
        if (cls.startsWith("io.sparkbloom.") && !cls.startsWith(DecoderFuzzMain.class.getName())) {
          return true;
        }
      }
    }
    return false;
  }

  /** The exception's simple name, with its cause's for the wrapping exceptions of Java and Kryo. */
  static String outcomeName(Decoder d, Throwable t) {
    String name = t.getClass().getSimpleName();
    if (t instanceof ContractViolation) {
      return "contract(" + t.getMessage().replaceAll("[0-9]+", "N").replaceAll("\\{.*\\}", "") + ")";
    }
    if (t.getCause() != null && (t instanceof KryoException || d.isJava())) {
      name += "(" + t.getCause().getClass().getSimpleName() + ")";
    }
    return name;
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder(b.length * 2);
    for (byte x : b) {
      s.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
    }
    return s.toString();
  }

  private static String trace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    String[] lines = w.toString().split("\\R");
    return String.join("\n", Arrays.copyOf(lines, Math.min(lines.length, 14)));
  }

  private static String indent(String s) {
    return "    " + s.replace("\n", "\n    ");
  }
}
