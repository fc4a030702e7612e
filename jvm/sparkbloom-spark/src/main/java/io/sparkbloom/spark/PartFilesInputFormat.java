package io.sparkbloom.spark;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SequenceFileInputFormat;

/**
 * The SequenceFiles of a {@code saveAsObjectFile} directory, one split per part file, in
 * part-file order, so that split {@code i} is {@code part-0000i} (hidden files such as
 * {@code _SUCCESS} are skipped as usual). Used by {@link PerKeyFilters#objectFile} to read a
 * partitioned filter objectFile back with its partitioner.
 */
public final class PartFilesInputFormat extends SequenceFileInputFormat<NullWritable, BytesWritable> {
  @Override
  protected boolean isSplitable(FileSystem fs, Path file) {
    return false;
  }

  @Override
  protected FileStatus[] listStatus(JobConf job) throws IOException {
    FileStatus[] files = super.listStatus(job);
    Arrays.sort(files, Comparator.comparing((FileStatus f) -> f.getPath().getName()));
    return files;
  }
}
