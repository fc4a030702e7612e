package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;

/**
 * Integer items as the typed Catalyst functions read them: straight from Spark's internal row and
 * array formats into {@code long}s, by the column's SQL type ({@code tinyint}, {@code smallint},
 * {@code int}, {@code bigint}; each hashed as the {@code long} of its value, as the UDFs hash
 * them), never through a boxed value.
 */
final class CatalystLongs {
  private CatalystLongs() {}

  /**
   * The non-null elements of {@code array}, in order, as longs. A {@code bigint} array without
   * nulls is copied in one piece ({@link ArrayData#toLongArray}).
   *
   * @param type the array's type; without {@code containsNull} no element is looked at for null
   * @param function the SQL function, for the error
   * @throws IllegalArgumentException naming the type if it is not an integer type (or void)
   */
  static long[] withoutNulls(ArrayData array, ArrayType type, String function) {
    return withoutNulls(array, type, function, "candidates' elements");
  }

  /** As {@link #withoutNulls(ArrayData, ArrayType, String)}, {@code argument} named in the error. */
  static long[] withoutNulls(ArrayData array, ArrayType type, String function, String argument) {
    DataType elementType = type.elementType();
    int n = array.numElements();
    int nulls = 0;
    for (int i = 0; type.containsNull() && i < n; i++) {
      if (array.isNullAt(i)) {
        nulls++;
      }
    }
    if (nulls == n || elementType instanceof NullType) {
      return new long[0];
    }
    if (nulls == 0 && elementType instanceof LongType) {
      return array.toLongArray();
    }
    Reader read = reader(elementType, function, argument);
    long[] out = new long[n - nulls];
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (nulls == 0 || !array.isNullAt(i)) {
        out[k++] = read.at(array, i);
      }
    }
    return out;
  }

  /** Reads element {@code i} of an array, or field {@code i} of a row (both getters), as a long. */
  interface Reader {
    long at(SpecializedGetters arrayOrRow, int i);
  }

  /**
   * The reader of {@code type}'s values.
   *
   * @throws IllegalArgumentException naming the function, the argument and the SQL type unless
   *     it is an integer type
   */
  static Reader reader(DataType type, String function, String argument) {
    if (type instanceof LongType) {
      return SpecializedGetters::getLong;
    } else if (type instanceof IntegerType) {
      return SpecializedGetters::getInt;
    } else if (type instanceof ShortType) {
      return SpecializedGetters::getShort;
    } else if (type instanceof ByteType) {
      return SpecializedGetters::getByte;
    }
    throw new IllegalArgumentException(function + ": " + argument + " of SQL type "
        + type.simpleString() + " is not supported; expected int or bigint");
  }
}
