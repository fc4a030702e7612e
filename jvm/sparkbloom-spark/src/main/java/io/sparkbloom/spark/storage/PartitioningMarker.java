package io.sparkbloom.spark.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The marker file beside the part files of a hash-partitioned filter objectFile: one line
 * {@code "hash N"}. Its name starts with {@code _}, so Hadoop readers (and plain
 * {@code objectFile}) skip it.
 */
public final class PartitioningMarker {
  private PartitioningMarker() {}

  static final String FILE = "_sparkbloom_partitioning";

  /** Records that the objectFile at {@code path} holds {@code numPartitions} hash partitions. */
  public static void write(Configuration conf, String path, int numPartitions) {
    try {
      Path file = new Path(path, FILE);
      FileSystem fs = file.getFileSystem(conf);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(("hash " + numPartitions + "\n").getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + FILE + " in " + path, e);
    }
  }

  /**
   * The number of hash partitions recorded at {@code path}, or -1 if there is no marker or it is
   * unreadable (the files are then read without a partitioner).
   */
  public static int read(Configuration conf, String path) {
    try {
      Path file = new Path(path, FILE);
      FileSystem fs = file.getFileSystem(conf);
      if (!fs.exists(file)) {
        return -1;
      }
      try (FSDataInputStream in = fs.open(file)) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        String[] parts = text.split("\\s+");
        return parts.length == 2 && parts[0].equals("hash") ? Integer.parseInt(parts[1]) : -1;
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }
}
