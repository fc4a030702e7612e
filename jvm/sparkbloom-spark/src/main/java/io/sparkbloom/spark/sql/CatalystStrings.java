package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;

/** String items as the typed Catalyst functions read them from Spark's arrays ({@link CatalystLongs}' twin). */
final class CatalystStrings {
  private CatalystStrings() {}

  /**
   * The non-null elements of {@code array}, in order.
   *
   * @param hint appended to the error, e.g. which function takes integers
   * @throws IllegalArgumentException naming the element type unless it is {@code string} (or void)
   */
  static UTF8String[] withoutNulls(ArrayData array, ArrayType type, String function, String hint) {
    DataType elementType = type.elementType();
    if (elementType instanceof NullType) {
      return new UTF8String[0];
    }
    if (!(elementType instanceof StringType)) {
      throw new IllegalArgumentException(function + ": candidates' elements of SQL type "
          + elementType.simpleString() + " is not supported; expected string" + hint);
    }
    int n = array.numElements();
    UTF8String[] out = new UTF8String[n];
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (!type.containsNull() || !array.isNullAt(i)) {
        out[k++] = array.getUTF8String(i);
      }
    }
    return k == n ? out : java.util.Arrays.copyOf(out, k);
  }

  /** {@code strings} decoded to Java strings, as a UDF receives them and the core hashes them. */
  static String[] decoded(UTF8String[] strings) {
    String[] out = new String[strings.length];
    for (int i = 0; i < strings.length; i++) {
      out[i] = strings[i].toString();
    }
    return out;
  }
}
