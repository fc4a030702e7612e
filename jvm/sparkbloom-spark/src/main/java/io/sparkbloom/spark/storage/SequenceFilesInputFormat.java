package io.sparkbloom.spark.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.MapFile;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapred.FileInputFormat;
import org.apache.hadoop.mapred.InvalidInputException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SequenceFileInputFormat;

/**
 * {@code SequenceFileInputFormat} (what {@code SparkContext.objectFile} reads with) whose listing
 * reads no permissions ({@link SavedFiles}): the same files, splits and errors, without a process
 * start per file on the local file system. Public for Hadoop's reflection.
 */
public class SequenceFilesInputFormat extends SequenceFileInputFormat<NullWritable, BytesWritable> {
  @Override
  protected FileStatus[] listStatus(JobConf job) throws IOException {
    Path[] patterns = FileInputFormat.getInputPaths(job);
    if (patterns.length == 0) {
      throw new IOException("No input paths specified in job");
    }
    boolean recursive = job.getBoolean(INPUT_DIR_RECURSIVE, false);
    List<FileStatus> files = new ArrayList<>();
    List<IOException> errors = new ArrayList<>();
    for (Path pattern : patterns) {
      FileSystem fs = pattern.getFileSystem(job);
      List<FileStatus> matched = SavedFiles.list(fs, pattern, recursive);
      if (matched == null) {
        errors.add(new IOException(fs.globStatus(pattern) == null
            ? "Input path does not exist: " + pattern
            : "Input Pattern " + pattern + " matches 0 files"));
        continue;
      }
      for (FileStatus f : matched) {
        // a MapFile directory is read through its data file, as SequenceFileInputFormat does
        files.add(f.isDirectory() ? fs.getFileStatus(new Path(f.getPath(), MapFile.DATA_FILE_NAME)) : f);
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidInputException(errors);
    }
    return files.toArray(new FileStatus[0]);
  }
}
