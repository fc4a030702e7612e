package io.sparkbloom.spark.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;

/**
 * Lists the files of a saved objectFile (a directory, a file or a glob) with plain
 * {@code FileStatus}es. Hadoop's own listings ({@code FileSystem.listFiles},
 * {@code FileInputFormat.listStatus}) build {@code LocatedFileStatus}es, which copy each file's
 * permissions: on the local file system without Hadoop's native library that runs
 * {@code ls -ld} once per file, a process start of a few milliseconds each on the driver (about 30
 * per dedup of 8 part files before this class). Nothing here reads permissions.
 */
public final class SavedFiles {
  private SavedFiles() {}

  /** Hadoop's rule for files a job does not read: names starting with {@code _} or {@code .}. */
  static final PathFilter VISIBLE = p -> {
    String name = p.getName();
    return !name.startsWith("_") && !name.startsWith(".");
  };

  /**
   * The visible files {@code pattern} matches: a matched directory's visible children
   * ({@code recursive}: and theirs, else subdirectories are returned as they are, as
   * {@code FileInputFormat} lists them); null if nothing matches.
   */
  public static List<FileStatus> list(FileSystem fs, Path pattern, boolean recursive) throws IOException {
    FileStatus[] matched = fs.globStatus(pattern, VISIBLE);
    if (matched == null || matched.length == 0) {
      return null;
    }
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus m : matched) {
      if (m.isDirectory()) {
        addChildren(fs, m.getPath(), recursive, files);
      } else {
        files.add(m);
      }
    }
    return files;
  }

  private static void addChildren(FileSystem fs, Path dir, boolean recursive, List<FileStatus> out)
      throws IOException {
    for (FileStatus c : fs.listStatus(dir, VISIBLE)) {
      if (recursive && c.isDirectory()) {
        addChildren(fs, c.getPath(), true, out);
      } else {
        out.add(c);
      }
    }
  }
}
