package io.sparkbloom.spark;

import io.sparkbloom.spark.dedup.BroadcastLimit;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The options of a {@link PerKeyFilters} helper, one immutable value instead of an overload per
 * combination: how each key's filter is sized ({@link Sizing}), how many hash partitions the
 * result (or a dedup's join) has, and the broadcast limit of a broadcast dedup.
 *
 * <pre>{@code
 * PerKeyOptions.of(Sizing.perKeyCount(0.001)).withPartitions(200)   // build into 200 partitions
 * PerKeyOptions.defaults().withBroadcastMaxBytes(64L << 20)          // dedup, broadcast up to 64 MiB
 * }</pre>
 */
public final class PerKeyOptions {
  private static final PerKeyOptions DEFAULTS = new PerKeyOptions(null, 0, -1);

  private final Sizing sizing;
  private final int partitions;
  private final long broadcastMaxBytes;

  private PerKeyOptions(Sizing sizing, int partitions, long broadcastMaxBytes) {
    this.sizing = sizing;
    this.partitions = partitions;
    this.broadcastMaxBytes = broadcastMaxBytes;
  }

  /** No sizing (a dedup needs none), partitions as the input's, the broadcast limit of the conf. */
  public static PerKeyOptions defaults() {
    return DEFAULTS;
  }

  /** The defaults with {@code sizing}, as every build helper needs one. */
  public static PerKeyOptions of(Sizing sizing) {
    return DEFAULTS.withSizing(sizing);
  }

  /** These options with {@code sizing}. */
  public PerKeyOptions withSizing(Sizing sizing) {
    return new PerKeyOptions(Objects.requireNonNull(sizing, "sizing"), partitions, broadcastMaxBytes);
  }

  /**
   * These options with {@code n} hash partitions: a build's filters come out partitioned (the
   * records are shuffled, not the filters), ready for {@link PerKeyFilters#saveAsObjectFile} and
   * a join that does not move them; a dedup's join is computed in {@code n} partitions.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public PerKeyOptions withPartitions(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("PerKeyOptions.withPartitions: n must be >= 1, got " + n);
    }
    return new PerKeyOptions(sizing, n, broadcastMaxBytes);
  }

  /**
   * These options with a broadcast limit of {@code maxBytes} instead of the conf's
   * ({@link PerKeyFilters#BROADCAST_MAX_BYTES_KEY}).
   *
   * @throws IllegalArgumentException if {@code maxBytes < 0}
   */
  public PerKeyOptions withBroadcastMaxBytes(long maxBytes) {
    BroadcastLimit.checkArgument(maxBytes);
    return new PerKeyOptions(sizing, partitions, maxBytes);
  }

  /** The sizing; null if none was given. */
  public Sizing sizing() {
    return sizing;
  }

  /** The number of hash partitions; 0 if none was given (the input's partitioning is kept). */
  public int partitions() {
    return partitions;
  }

  /**
   * The broadcast limit in force for {@code jsc}: the one given, else {@link
   * PerKeyFilters#BROADCAST_MAX_BYTES_KEY} or its default.
   */
  public long broadcastMaxBytes(JavaSparkContext jsc) {
    return broadcastMaxBytes >= 0 ? broadcastMaxBytes : BroadcastLimit.of(jsc);
  }

  /** The sizing, which a build requires. */
  Sizing requireSizing(String helper) {
    if (sizing == null) {
      throw new IllegalArgumentException("PerKeyFilters." + helper
          + " needs a sizing: PerKeyOptions.of(Sizing.fixed(n, p)) or PerKeyOptions.of(Sizing.perKeyCount(p))");
    }
    return sizing;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof PerKeyOptions)) {
      return false;
    }
    PerKeyOptions other = (PerKeyOptions) o;
    return Objects.equals(sizing, other.sizing) && partitions == other.partitions
        && broadcastMaxBytes == other.broadcastMaxBytes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(sizing, partitions, broadcastMaxBytes);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "PerKeyOptions(sizing=%s, partitions=%s, broadcastMaxBytes=%s)",
        sizing, partitions == 0 ? "input's" : partitions, broadcastMaxBytes < 0 ? "conf" : broadcastMaxBytes);
  }
}
