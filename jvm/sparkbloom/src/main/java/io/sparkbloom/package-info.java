/**
 * sparkbloom: a Bloom filter for the JVM and Apache Spark that sets exactly the bits Guava's
 * {@code BloomFilter} sets, keeps them in native memory behind a Rust core, and serializes to a
 * documented, versioned, checksummed layout.
 *
 * <h2>What a Bloom filter promises</h2>
 *
 * <ul>
 *   <li><b>No false negatives</b>: after {@code put(k)}, {@code mightContain(k)} is always
 *       {@code true}, also when many threads put and query at once.
 *   <li><b>False positives at the rate you size for</b>: for a key never put, {@code
 *       mightContain} is {@code true} with probability about {@code fpp} once {@code
 *       expectedInsertions} distinct keys are in; more keys raise the rate ({@link
 *       io.sparkbloom.BloomFilter#expectedFpp()} tells the current one).
 *   <li><b>Fixed size</b>: {@code m} bits and {@code k} hash functions chosen at creation, the
 *       same as Guava's {@code BloomFilter.create(funnel, n, fpp)}: {@code m = -n ln(fpp) /
 *       ln(2)^2} rounded up to a multiple of 64, {@code k = round(-ln(fpp) / ln 2)} (Guava 33.8;
 *       {@code create(n, fpp, MURMUR128_MITZ_32)} reproduces Guava 14.0.1's k). A typical
 *       per-user filter, {@code create(10_000, 0.001)}, has m = 143,808 bits (17,976 bytes,
 *       14.4 bits per key) and k = 10.
 * </ul>
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * import io.sparkbloom.BloomFilter;
 *
 * try (BloomFilter seen = BloomFilter.create(10_000, 0.001)) {
 *   seen.putAll(watchedItemIds);                       // long[]: one native call
 *   long[] fresh = seen.retainAbsent(candidateIds);     // certainly unseen, order kept
 *   boolean maybe = seen.mightContain(42L);             // cheap: one call, no allocation
 *   seen.put("user@example.com");                       // strings hash as UTF-8
 *   byte[] bytes = seen.toByteArray();                  // FORMAT.md layout
 *   BloomFilter again = BloomFilter.fromByteArray(bytes);
 * }
 * }</pre>
 *
 * <h2>Combining</h2>
 *
 * {@link io.sparkbloom.BloomFilter#merge merge} ORs a filter into another (union: e.g. per-day
 * filters into a per-week one); {@link io.sparkbloom.BloomFilter#intersect intersect} ANDs
 * (probably in both). Both need {@linkplain io.sparkbloom.BloomFilter#isCompatible compatible}
 * filters (same m, k and strategy) and otherwise throw {@code IllegalArgumentException} naming
 * what differs.
 *
 * <h2>Guava</h2>
 *
 * <ul>
 *   <li>{@link io.sparkbloom.BloomFilter#readGuava readGuava} reads the bytes of Guava's {@code
 *       writeTo}; {@link io.sparkbloom.BloomFilter#writeGuava writeGuava} writes bytes Guava's
 *       {@code readFrom} loads. Both directions answer exactly as Guava does.
 *   <li>{@link io.sparkbloom.BloomFilter#fromGuava fromGuava} converts a live Guava filter (Guava
 *       14 to 33, or the copy Spark 3 shades as {@code org.sparkproject.guava}), e.g. one loaded
 *       with {@code sc.objectFile}, keeping its strategy.
 *   <li>Keys: {@code long} = {@code Funnels.longFunnel()}, {@code String} = {@code
 *       Funnels.stringFunnel(UTF_8)}, {@code byte[]} = {@code Funnels.byteArrayFunnel()}.
 * </ul>
 *
 * <h2>Spark</h2>
 *
 * <ul>
 *   <li>A filter is {@code java.io.Serializable} (a small envelope around its FORMAT.md bytes)
 *       and Kryo-ready ({@link io.sparkbloom.BloomFilterKryoSerializer}, found by Kryo without
 *       registration). No native pointer is ever serialized.
 *   <li>The bits live in native memory: give executors {@code spark.executor.memoryOverhead} for
 *       them (README, "Memory").
 *   <li>Broadcast filters are shared by the tasks of an executor: query them freely, never
 *       {@code close()} them; they are freed once unreachable.
 * </ul>
 *
 * <h2>Threads and memory</h2>
 *
 * {@code put}, {@code putAll}, {@code mightContain*}, {@code retainAbsent}, {@code merge} and
 * {@code intersect} may be called from many threads at once: the calls that change a filter
 * take turns on a lock inside it while queries never wait, so no put is lost and there are no
 * false negatives. {@code merge} only adds bits. {@code intersect} ANDs each 64-bit word with
 * the other filter's word as it is at one instant during the call, while puts into this filter
 * wait: a put that returned before intersect began is intersected like any other key, and a
 * key put into the other filter and then into this one is reported present.
 *
 * <p>The bit array ({@code bitSize() / 8} bytes) lives outside the Java heap. {@code close()}
 * frees it at once when only the creating thread ever used the filter; a filter that is never
 * closed is freed after the garbage collector finds it unreachable. Using a filter after {@code
 * close()} throws {@code IllegalStateException}; a second {@code close()} does nothing. {@code
 * close()} is safe against calls from other threads: once any thread other than the one that
 * created (or deserialized) the filter has used it, or when another thread closes it, {@code
 * close()} marks it closed (later calls throw) but leaves its memory to the {@link
 * java.lang.ref.Cleaner}, which frees it when no thread can reach the filter any more — so
 * closing a filter that a Spark broadcast shares between tasks never crashes the JVM, though
 * the other tasks then fail. Don't close shared filters; drop them.
 *
 * <p>Single-key {@code mightContain} ({@code long}, {@code String}, {@code byte[]}) reads the
 * native bit array in place from Java (a direct buffer over it; no native call per key) under
 * the same rules: it first checks that the filter is open and keeps the filter reachable until
 * it returns, so the memory cannot be freed under it, and the array never moves while the
 * filter lives. It sees every put that happens-before it, whichever thread made the put. {@code
 * -Dsparkbloom.singleKeyView=false} turns this off (one native call per key).
 *
 * <h2>Errors</h2>
 *
 * {@code IllegalArgumentException} for bad sizes and incompatible filters, {@code
 * NullPointerException} for null keys or arrays, {@code IllegalStateException} after {@code
 * close()}, {@link io.sparkbloom.CorruptFilterException} (an {@code IOException}) for bytes that
 * are not a filter, naming the bad field. A failure inside the Rust core never crashes the JVM:
 * it arrives as a {@code RuntimeException}.
 *
 * <h2>Native library</h2>
 *
 * The jar carries {@code native/linux-x86_64/libsparkbloom.so} and {@code
 * native/linux-aarch64/libsparkbloom.so} (picked by {@code os.arch}), extracted to a uniquely
 * named temporary file and loaded once. {@code -Dsparkbloom.native.path=/path/to/libsparkbloom.so}
 * loads another build instead (other platforms: {@code cargo build --release --features jni});
 * {@code -Dsparkbloom.native.tmpdir} picks the extraction directory.
 */
package io.sparkbloom;
