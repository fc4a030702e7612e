package io.sparkbloom.spark.dedup;

import io.sparkbloom.spark.storage.SavedFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The most bytes of filters {@code PerKeyFilters.dedupBroadcast} collects to the driver and
 * broadcasts: {@value #CONF_KEY} (a Spark size such as {@code 64m}), by default {@link #byDefault}.
 *
 * <p>Why a limit: the driver holds the filters' bytes up to three times at the peak of a
 * broadcast (the task results as they arrive, the collected map, the broadcast's serialized
 * blocks in its block manager), and every executor keeps one deserialized copy in its storage
 * memory. Fixed-size filters (10,000 items each) of 100,000 users are a 200 MB broadcast and of
 * 10^7 users 20 GB: past the limit the join ({@code PerKeyFilters.dedup}) moves the candidates
 * instead and needs no such memory anywhere.
 */
public final class BroadcastLimit {
  private BroadcastLimit() {}

  public static final String CONF_KEY = "spark.sparkbloom.broadcast.maxBytes";

  /** The cap of the default: a third of a default 1 GiB executor's ~400 MB of storage memory. */
  static final long DEFAULT_CAP = 128L << 20;

  /**
   * The default limit: a tenth of the driver's max heap (so its ~3 copies stay under a third of
   * it), at most {@link #DEFAULT_CAP} (the executors' side, whose heap the driver cannot see).
   */
  static long byDefault() {
    return Math.min(Runtime.getRuntime().maxMemory() / 10, DEFAULT_CAP);
  }

  /** The limit in force for {@code jsc}: {@value #CONF_KEY} if set, else {@link #byDefault}. */
  public static long of(JavaSparkContext jsc) {
    long limit = jsc.getConf().getSizeAsBytes(CONF_KEY, Long.toString(byDefault()));
    if (limit < 0) {
      throw new IllegalArgumentException(CONF_KEY + " must be >= 0 bytes, got " + limit);
    }
    return limit;
  }

  public static void checkArgument(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must be >= 0, got " + maxBytes);
    }
  }

  /**
   * The total length of the files saved at {@code path} (a directory, a file or a glob, as
   * {@code objectFile} reads it), skipping Hadoop's hidden files ({@code _SUCCESS}, the
   * partitioning marker, {@code .crc}): read from the file system's listing, no Spark job. The
   * saved records hold the filters' FORMAT bytes plus a few bytes of framing per record, so this
   * is an upper bound of what the broadcast collects. Listed without reading permissions
   * ({@link SavedFiles}).
   */
  public static long savedBytes(JavaSparkContext jsc, String path) {
    Path p = new Path(path);
    try {
      List<FileStatus> files = SavedFiles.list(p.getFileSystem(jsc.hadoopConfiguration()), p, true);
      if (files == null) {
        throw new IllegalArgumentException("no saved filters at " + path);
      }
      if (files.isEmpty()) {
        throw new IllegalArgumentException("no saved filters at " + path + ": the directory holds"
            + " no part file (saveAsObjectFile writes at least one, even for no filters)");
      }
      long total = 0;
      for (FileStatus f : files) {
        total += f.getLen();
      }
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the saved filters at " + path, e);
    }
  }

  /**
   * The exception for {@code bytes} of filters over {@code limit}: what ({@code what} takes the
   * bytes, e.g. "the filters saved at P take"), how much, and what to do instead.
   */
  public static Exceeded exceeded(String what, long bytes, long limit) {
    return new Exceeded(String.format(Locale.ROOT,
        "dedupBroadcast: %s %,d bytes, over the broadcast limit of %,d bytes (%s); use "
            + "PerKeyFilters.dedup (a join: it moves the candidates and holds no filter on the driver), "
            + "PerKeyFilters.dedup(jsc, path, candidates) to choose by size, or raise %s",
        what, bytes, limit, CONF_KEY, CONF_KEY));
  }

  /** Over the limit: an {@code IllegalArgumentException} Spark's job failure can be unwrapped to. */
  static final class Exceeded extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Exceeded(String message) {
      super(message);
    }
  }
}
