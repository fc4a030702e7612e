package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.InternalRow;
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

  /** Reads element {@code i} of an array, or field {@code i} of a row, as a long. */
  interface Reader {
    long at(ArrayData array, int i);

    long at(InternalRow row, int i);
  }

  /**
   * The reader of {@code type}'s values.
   *
   * @throws IllegalArgumentException naming the function, the argument and the SQL type unless
   *     it is an integer type
   */
  static Reader reader(DataType type, String function, String argument) {
    if (type instanceof LongType) {
      return LONG;
    } else if (type instanceof IntegerType) {
      return INT;
    } else if (type instanceof ShortType) {
      return SHORT;
    } else if (type instanceof ByteType) {
      return BYTE;
    }
    throw new IllegalArgumentException(function + ": " + argument + " of SQL type "
        + type.simpleString() + " is not supported; expected int or bigint");
  }

  private static final Reader LONG = new Reader() {
    @Override
    public long at(ArrayData array, int i) {
      return array.getLong(i);
    }

    @Override
    public long at(InternalRow row, int i) {
      return row.getLong(i);
    }
  };

  private static final Reader INT = new Reader() {
    @Override
    public long at(ArrayData array, int i) {
      return array.getInt(i);
    }

    @Override
    public long at(InternalRow row, int i) {
      return row.getInt(i);
    }
  };

  private static final Reader SHORT = new Reader() {
    @Override
    public long at(ArrayData array, int i) {
      return array.getShort(i);
    }

    @Override
    public long at(InternalRow row, int i) {
      return row.getShort(i);
    }
  };

  private static final Reader BYTE = new Reader() {
    @Override
    public long at(ArrayData array, int i) {
      return array.getByte(i);
    }

    @Override
    public long at(InternalRow row, int i) {
      return row.getByte(i);
    }
  };
}
