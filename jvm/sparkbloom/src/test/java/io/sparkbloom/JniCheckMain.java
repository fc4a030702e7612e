package io.sparkbloom;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Run in a child JVM by {@link ChildJvmTest}: {@code all} calls every native method, on success
 * and on every error path, so that {@code -Xcheck:jni} sees each of them; {@code maps} prints the
 * file the library was loaded from; {@code threads} makes 8 threads race to load it;
 * {@code churn:N} drops N filters without closing them and prints RSS figures; {@code
 * close-race:N} closes filters other threads are querying, N times; {@code panic} calls the
 * test library's panic hook.
 */
public final class JniCheckMain {
  private JniCheckMain() {}

  public static void main(String[] args) throws Exception {
    try {
      ChildScenarios.run(args.length == 0 ? "all" : args[0], Map.of(
          "all", none -> exerciseEverything(),
          "maps", none -> printMappedLibrary(),
          "threads", none -> raceToLoad(),
          "churn", count -> churn(Integer.parseInt(count)),
          "close-race", rounds -> closeRace(Integer.parseInt(rounds)),
          "panic", none -> panic()));
      System.out.println("JNI-CHECK-DONE");
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
        System.out.println("CAUSE " + c);
      }
      System.exit(3);
    }
  }

  /** Loads the library and prints the file it was mapped from. */
  private static void printMappedLibrary() throws Exception {
    try (BloomFilter f = BloomFilter.create(10, 0.1)) {
      f.put(1L);
    }
    for (String line : Files.readAllLines(Paths.get("/proc/self/maps"), StandardCharsets.US_ASCII)) {
      if (line.contains("libsparkbloom")) {
        System.out.println("MAPPED " + line.substring(line.indexOf('/')));
        return;
      }
    }
  }

  /**
   * A Rust panic (the test hook of a library built with {@code jni-test-hooks}) arrives as a
   * plain RuntimeException carrying its message, and the library works on afterwards.
   */
  private static void panic() {
    try {
      TestHooks.nPanicForTest(1234);
      throw new AssertionError("the test hook returned");
    } catch (RuntimeException e) {
      System.out.println("PANIC " + e);
    }
    try (BloomFilter f = BloomFilter.create(10, 0.1)) {
      System.out.println("AFTER put=" + f.put(1L));
    }
  }

  /**
   * {@code rounds} times: four threads query a filter large enough that freeing it unmaps its
   * pages, while the creating thread, and in odd rounds a fifth thread, closes it. A query that
   * reached freed memory would crash this JVM; every call must instead answer or throw
   * IllegalStateException. Prints the calls made and refused, and the native bytes still
   * awaiting the Cleaner after the filters are dropped.
   */
  private static void closeRace(int rounds) throws Exception {
    long answered = 0;
    long refused = 0;
    long[] keys = TestSupport.keys(42, 4096);
    for (int round = 0; round < rounds; round++) {
      BloomFilter filter = BloomFilter.create(10_000_000, 0.001); // 18 MB: freed by munmap
      filter.putAll(keys);
      CountDownLatch started = new CountDownLatch(4);
      AtomicLong ok = new AtomicLong();
      AtomicLong closed = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        threads.add(
            new Thread(
                () -> {
                  started.countDown();
                  try {
                    while (true) {
                      if (!filter.mightContain(keys[7])) {
                        throw new AssertionError("false negative");
                      }
                      for (boolean present : filter.mightContainAll(keys)) {
                        if (!present) {
                          throw new AssertionError("false negative in a batch");
                        }
                      }
                      ok.incrementAndGet();
                    }
                  } catch (IllegalStateException expected) {
                    closed.incrementAndGet();
                  } catch (Throwable t2) {
                    failure.set(t2);
                  }
                }));
      }
      threads.forEach(Thread::start);
      started.await();
      while (ok.get() < 4) {
        Thread.onSpinWait();
      }
      if (round % 2 == 1) {
        Thread closer = new Thread(filter::close);
        closer.start();
        closer.join();
      } else {
        filter.close();
      }
      for (Thread t : threads) {
        t.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("round " + round, failure.get());
      }
      if (closed.get() != 4) {
        throw new AssertionError(
            "round " + round + ": " + closed.get() + " of 4 threads saw close()");
      }
      answered += ok.get();
      refused += closed.get();
    }
    long outstanding = TestSupport.nativeBytesAfterCollection(1, 30);
    System.out.println(
        "CLOSE-RACE rounds=" + rounds + " answered=" + answered + " refused=" + refused
            + " outstanding=" + outstanding);
  }

  /** Creates and drops {@code count} seed-size filters without close(); prints RSS figures. */
  private static void churn(int count) throws Exception {
    long baseline = 0;
    long peak = 0;
    for (int i = 0; i < count; i++) {
      BloomFilter f = BloomFilter.create(10_000, 0.001);
      f.put(i);
      if (i == count / 10) {
        baseline = TestSupport.rssKiB();
      }
      if (i > count / 10 && i % 10_000 == 0) {
        peak = Math.max(peak, TestSupport.rssKiB());
      }
    }
    System.out.println("CHURN baseline " + baseline + " peak " + peak);
  }

  private static void raceToLoad() throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(8);
    List<Thread> threads = new ArrayList<>();
    Throwable[] failures = new Throwable[8];
    for (int t = 0; t < 8; t++) {
      final int id = t;
      Thread thread =
          new Thread(
              () -> {
                try {
                  barrier.await();
                  try (BloomFilter f = BloomFilter.create(100, 0.01)) {
                    f.put(id);
                    if (!f.mightContain(id)) {
                      throw new AssertionError("false negative");
                    }
                  }
                } catch (Throwable e) {
                  failures[id] = e;
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    for (Throwable f : failures) {
      if (f != null) {
        throw new AssertionError(f);
      }
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void expect(Class<? extends Throwable> type, Call call) {
    try {
      call.run();
    } catch (Throwable t) {
      if (type.isInstance(t)) {
        return;
      }
      throw new AssertionError("expected " + type.getName() + ", got " + t, t);
    }
    throw new AssertionError("expected " + type.getName());
  }

  private static void exerciseEverything() throws Exception {
    BloomFilter f = BloomFilter.create(10_000, 0.001);
    BloomFilter legacy = BloomFilter.create(10_000, 0.001, Strategy.MURMUR128_MITZ_32);
    BloomFilter big = BloomFilter.create(2_000_000, 0.01); // the prefetching batch path
    long[] keys = TestSupport.keys(7, 5_000);
    f.put(1L);
    f.put("s");
    f.put(new byte[] {1});
    f.mightContain(1L);
    f.mightContain("s");
    f.mightContain(new byte[] {1});
    f.putAll(keys);
    f.mightContainAll(keys);
    f.retainAbsent(keys);
    big.putAll(keys);
    big.mightContainAll(keys);
    big.retainAbsent(keys);
    f.mightContainAll(new long[0]);
    f.retainAbsent(new long[0]);
    String[] strings = {"a", "é", "😀", ""};
    f.putAll(strings);
    f.mightContainAll(strings);
    String[] ascii = {"user-1", "user-2", ""}; // narrowed from the pinned chars
    f.putAll(ascii);
    f.retainAbsent(ascii);
    f.retainAbsent(new byte[][] {{1}, {}});
    f.mightContainAll(new String[0]);
    try (BloomFilter spark = BloomFilter.create(100, 0.03, Strategy.SPARK_SKETCH_V2)) {
      spark.putAll(strings);
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      spark.writeSpark(out);
      BloomFilter.readSpark(new java.io.ByteArrayInputStream(out.toByteArray())).close();
    }
    BloomFilter copy = f.copy();
    copy.merge(f);
    copy.intersect(f);
    f.isCompatible(copy);
    f.equals(copy);
    f.hashCode();
    f.toString();
    f.bitSize();
    f.numHashFunctions();
    f.strategy();
    f.bitCount();
    f.approximateElementCount();
    f.expectedFpp();
    byte[] bytes = f.toByteArray();
    BloomFilter.fromByteArray(bytes).close();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray())).close();
    out.reset();
    f.writeGuava(out);
    BloomFilter.readGuava(new ByteArrayInputStream(out.toByteArray())).close();
    BloomFilter.fromGuavaByteArray(f.toGuavaByteArray()).close();
    BloomFilter.fromWords(new long[] {1, 2}, 3, Strategy.MURMUR128_MITZ_32).close();
    try (CountingBloomFilter c = CountingBloomFilter.create(1_000, 0.01);
        CountingBloomFilter other = c.copy()) {
      c.add(1L);
      c.add("s");
      c.addAll(keys);
      c.removeAll(keys);
      c.mightContainAll(keys);
      c.retainAbsent(keys);
      c.merge(other);
      c.toString();
      c.hashCode();
      CountingBloomFilter.fromByteArray(c.toByteArray()).close();
    }
    RedisBitmaps.helperNumHashFunctions(10_000, 0.001);
    RedisBitmaps.offsets(143_775, 10, Strategy.MURMUR128_MITZ_32, keys, 10, 4_000);
    RedisBitmaps.offsets(143_775, 10, Strategy.MURMUR128_MITZ_32, strings, 0, strings.length);
    RedisBitmaps.offsets(143_775, 10, Strategy.MURMUR128_MITZ_32, new byte[][] {{1}, {}}, 0, 2);

    // Every error path.
    expect(IllegalArgumentException.class, () -> BloomFilter.create(-1, 0.1));
    expect(IllegalArgumentException.class, () -> BloomFilter.create(10, Double.NaN));
    expect(IllegalArgumentException.class, () -> BloomFilter.create(Long.MAX_VALUE, 1e-9));
    expect(IllegalArgumentException.class, () -> f.merge(legacy));
    expect(IllegalArgumentException.class, () -> f.intersect(big));
    expect(IllegalArgumentException.class, () -> BloomFilter.fromWords(new long[0], 3, Strategy.MURMUR128_MITZ_64));
    expect(IllegalArgumentException.class, () -> BloomFilter.fromWords(new long[1], -3, Strategy.MURMUR128_MITZ_64));
    expect(NullPointerException.class, () -> f.put((byte[]) null));
    expect(NullPointerException.class, () -> f.mightContain((byte[]) null));
    expect(NullPointerException.class, () -> f.putAll((long[]) null));
    expect(NullPointerException.class, () -> f.retainAbsent((long[]) null));
    expect(NullPointerException.class, () -> BloomFilter.fromByteArray(null));
    expect(NullPointerException.class, () -> BloomFilter.fromGuavaByteArray(null));
    expect(NullPointerException.class, () -> BloomFilter.fromWords(null, 3, Strategy.MURMUR128_MITZ_64));
    byte[] corrupt = bytes.clone();
    corrupt[0] = 'X';
    expect(CorruptFilterException.class, () -> BloomFilter.fromByteArray(corrupt));
    expect(CorruptFilterException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(corrupt)));
    expect(CorruptFilterException.class, () -> BloomFilter.fromGuavaByteArray(new byte[] {7, 1, 0, 0, 0, 1}));
    expect(CorruptFilterException.class, () -> BloomFilter.readGuava(new ByteArrayInputStream(new byte[] {0, 1, -1, -1, -1, -1})));
    expect(IllegalArgumentException.class, () -> RedisBitmaps.helperBitSize(1L << 31, 0.5));
    expect(IllegalArgumentException.class, () -> RedisBitmaps.offsets(0, 10, Strategy.MURMUR128_MITZ_32, keys, 0, 1));
    expect(IllegalArgumentException.class, () -> RedisBitmaps.offsets(64, 3, Strategy.BLOCKED, strings, 0, 1));
    BloomFilter closed = BloomFilter.create(10, 0.1);
    closed.close();
    closed.close();
    expect(IllegalStateException.class, () -> closed.mightContain(1L));
    expect(IllegalStateException.class, () -> f.merge(closed));

    // Java serialization and the Cleaner on the same natives.
    ByteArrayOutputStream serial = new ByteArrayOutputStream();
    try (java.io.ObjectOutputStream oos = new java.io.ObjectOutputStream(serial)) {
      oos.writeObject(f);
    }
    try (java.io.ObjectInputStream ois =
        new java.io.ObjectInputStream(new ByteArrayInputStream(serial.toByteArray()))) {
      ((BloomFilter) ois.readObject()).close();
    }
    for (int i = 0; i < 10_000; i++) {
      BloomFilter.create(1_000, 0.01).put(i); // never closed: freed by the Cleaner thread
    }
    System.gc();
    f.close();
    legacy.close();
    big.close();
    copy.close();
  }
}
