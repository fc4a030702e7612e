package io.sparkbloom.spark.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapred.JobConf;
import org.apache.spark.api.java.JavaHadoopRDD;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import scala.Tuple2;

/**
 * The SequenceFiles of a {@code saveAsObjectFile} directory, one split per part file, in
 * part-file order, so that split {@code i} is {@code part-0000i} (hidden files such as
 * {@code _SUCCESS} are skipped as usual; listed without reading permissions, as its parent). Used by {@code PerKeyFilters.objectFile} to read a
 * partitioned filter objectFile back with its partitioner.
 */
public final class PartFilesInputFormat extends SequenceFilesInputFormat {
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

  /**
   * The elements of every record of {@code files} (a {@code hadoopFile} of SequenceFiles), as
   * {@code decode} makes them; a record that cannot be read or decoded fails the task with an
   * {@link UncheckedIOException} naming its file (Hadoop's {@code EOFException} for a truncated
   * file and a corrupt filter's {@code InvalidObjectException} do not).
   */
  public static <T> JavaRDD<T> records(JavaPairRDD<NullWritable, BytesWritable> files,
      FlatMapFunction<BytesWritable, T> decode) {
    return ((JavaHadoopRDD<NullWritable, BytesWritable>) files).mapPartitionsWithInputSplit(
        (split, records) -> new FileRecords<>(((FileSplit) split).getPath().toString(), records, decode), false);
  }

  /** The decoded elements of one file's records; failures name the file. */
  private static final class FileRecords<T> implements Iterator<T> {
    private final String file;
    private final Iterator<Tuple2<NullWritable, BytesWritable>> records;
    private final FlatMapFunction<BytesWritable, T> decode;
    private Iterator<T> current = Collections.emptyIterator();

    FileRecords(String file, Iterator<Tuple2<NullWritable, BytesWritable>> records,
        FlatMapFunction<BytesWritable, T> decode) {
      this.file = file;
      this.records = records;
      this.decode = decode;
    }

    @Override
    public boolean hasNext() {
      try {
        while (!current.hasNext() && records.hasNext()) {
          current = decode.call(records.next()._2());
        }
        return current.hasNext();
      } catch (Exception e) { // Hadoop's reader throws IOException through the Scala iterator
        IOException io = e instanceof IOException ? (IOException) e : new IOException(e.toString(), e);
        throw new UncheckedIOException("reading filters from " + file + ": " + e, io);
      }
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return current.next();
    }
  }
}
