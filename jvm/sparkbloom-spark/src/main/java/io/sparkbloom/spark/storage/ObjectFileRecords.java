package io.sparkbloom.spark.storage;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.rdd.MappedIterator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.io.BytesWritable;
import scala.Tuple2;

/**
 * Reads one SequenceFile value of {@code saveAsObjectFile} as {@code SparkContext.objectFile}
 * does: a Java-serialized array of up to 10 elements, classes resolved through the task's context
 * class loader. Lets {@code PerKeyFilters.objectFile} read the part files itself, one partition
 * per file.
 */
public final class ObjectFileRecords {
  private ObjectFileRecords() {}

  /**
   * The {@code (key, filter)} elements of one saved record (a null filter stays null).
   *
   * @throws IllegalArgumentException naming the element's type if it is not such a pair (the
   *     caller names the file)
   */
  public static <K> Iterator<Tuple2<K, BloomFilter>> deserialize(BytesWritable value)
      throws IOException, ClassNotFoundException {
    Iterator<Object> elements = read(value, false);
    // checked here, all at once (at most 10 per record), so the reader's failure names the file
    List<Tuple2<K, BloomFilter>> pairs = new ArrayList<>();
    while (elements.hasNext()) {
      Object element = elements.next();
      Object filter = element instanceof Tuple2 ? ((Tuple2<?, ?>) element)._2() : null;
      if (!(element instanceof Tuple2) || !(filter == null || filter instanceof BloomFilter)) {
        throw notAFilterRecord(element, filter);
      }
      @SuppressWarnings("unchecked")
      Tuple2<K, BloomFilter> pair = (Tuple2<K, BloomFilter>) element;
      pairs.add(pair);
    }
    return pairs.iterator();
  }

  /**
   * The {@code (key, filter)} elements of one saved record with each filter's FORMAT bytes in
   * place of the filter, not decoded ({@link SavedFilterBytes}); a null filter stays null.
   */
  public static <K> Iterator<Tuple2<K, byte[]>> deserializeEncoded(BytesWritable value)
      throws IOException, ClassNotFoundException {
    return MappedIterator.of(read(value, true), ObjectFileRecords::encoded);
  }

  /** A saved {@code (key, filter)} element with the filter's bytes in place of the filter. */
  @SuppressWarnings("unchecked")
  private static <K> Tuple2<K, byte[]> encoded(Object element) {
    Object value = element instanceof Tuple2 ? ((Tuple2<?, ?>) element)._2() : null;
    K key = element instanceof Tuple2 ? (K) ((Tuple2<?, ?>) element)._1() : null;
    if (value instanceof SavedFilterBytes) {
      return new Tuple2<>(key, ((SavedFilterBytes) value).bytes());
    }
    if (value instanceof BloomFilter) {
      // a proxy whose stream form differs from the expected one was decoded: encode it again
      try (BloomFilter f = (BloomFilter) value) {
        return new Tuple2<>(key, f.toByteArray());
      }
    }
    if (element instanceof Tuple2 && value == null) {
      return new Tuple2<>(key, null);
    }
    throw notAFilterRecord(element, value);
  }

  private static IllegalArgumentException notAFilterRecord(Object element, Object value) {
    return new IllegalArgumentException("not a (key, BloomFilter) record of saveAsObjectFile: "
        + (element instanceof Tuple2 ? "(key, " + className(value) + ")" : className(element)));
  }

  private static String className(Object o) {
    return o == null ? "null" : o.getClass().getName();
  }

  @SuppressWarnings("unchecked")
  private static <T> Iterator<T> read(BytesWritable value, boolean filterBytes)
      throws IOException, ClassNotFoundException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(value.getBytes(), 0, value.getLength())) {
      @Override
      protected ObjectStreamClass readClassDescriptor() throws IOException, ClassNotFoundException {
        ObjectStreamClass desc = super.readClassDescriptor();
        // the filter's serial proxy read as its bytes (same serial form), not decoded
        return filterBytes && SavedFilterBytes.standsFor(desc) ? SavedFilterBytes.DESCRIPTOR : desc;
      }

      @Override
      protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        if (loader != null) {
          try {
            return Class.forName(desc.getName(), false, loader);
          } catch (ClassNotFoundException e) {
            // fall through to the default lookup (primitive types, bootstrap classes)
          }
        }
        return super.resolveClass(desc);
      }
    }) {
      Object[] array = (Object[]) in.readObject();
      return (Iterator<T>) Arrays.asList(array).iterator();
    }
  }
}
