package io.sparkbloom.spark;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.hadoop.io.BytesWritable;

/**
 * Reads one SequenceFile value of {@code saveAsObjectFile} as {@code SparkContext.objectFile}
 * does: a Java-serialized array of up to 10 elements, classes resolved through the task's context
 * class loader. Lets {@link PerKeyFilters#objectFile} read the part files itself, one partition
 * per file.
 */
final class ObjectFileRecords {
  private ObjectFileRecords() {}

  /** The elements of one saved record. */
  @SuppressWarnings("unchecked")
  static <T> Iterator<T> deserialize(BytesWritable value) throws IOException, ClassNotFoundException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(value.getBytes(), 0, value.getLength())) {
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
