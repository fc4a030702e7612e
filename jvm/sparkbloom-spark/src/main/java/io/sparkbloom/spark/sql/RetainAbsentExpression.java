package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code sparkbloom_retain_absent(filter BINARY, candidates ARRAY<BIGINT | INT | SMALLINT |
 * TINYINT>) -> ARRAY<BIGINT>} and {@code sparkbloom_retain_absent_string(filter BINARY,
 * candidates ARRAY<STRING>) -> ARRAY<STRING>} as one Catalyst expression: the candidates are read
 * from Spark's own array, integers as a primitive {@code long[]} ({@link CatalystLongs}), answered
 * in one native call, and returned as Spark's array again (an {@link UnsafeArrayData} over the kept
 * {@code long[]}, or the kept strings themselves); no integer is boxed on the way, where the
 * {@code ScalaUDF} forms convert every candidate to a Java object in a Scala {@code Seq} and back.
 * String candidates are hashed as {@code BloomFilter.put(String)} hashes them, as the UDF does.
 *
 * <p>Same answers as the UDF forms: null candidates give null; null elements are dropped; a null
 * filter (a key with no history) keeps every candidate; order is kept. The argument types are
 * checked when the call is built ({@link SqlFunction}, {@link SqlArgumentCheck}); the element type
 * is read from the resolved candidates here.
 *
 * <p>Evaluated by {@link #eval} also inside generated code ({@link TypedExpression}): the work per
 * row is one native call over the whole array, so a generated call would save nothing measurable.
 */
public final class RetainAbsentExpression extends TypedExpression {
  private static final long serialVersionUID = 1L;
  /** SQL {@code sparkbloom_retain_absent}: integer candidates. */
  public static final String NAME = "sparkbloom_retain_absent";
  /** SQL {@code sparkbloom_retain_absent_string}: string candidates. */
  public static final String STRING_NAME = "sparkbloom_retain_absent_string";
  private static final ArrayType LONGS = DataTypes.createArrayType(DataTypes.LongType, false);
  private static final ArrayType STRINGS = DataTypes.createArrayType(DataTypes.StringType, false);

  private final Expression filter;
  private final Expression candidates;
  /** True for {@value #STRING_NAME}. */
  private final boolean strings;

  /** {@value #NAME}{@code (filter, candidates)}. */
  public RetainAbsentExpression(Expression filter, Expression candidates) {
    this(filter, candidates, false);
  }

  /** {@value #STRING_NAME} if {@code strings}, else {@value #NAME}. */
  public RetainAbsentExpression(Expression filter, Expression candidates, boolean strings) {
    this.filter = filter;
    this.candidates = candidates;
    this.strings = strings;
  }

  /** The column {@code sparkbloom_retain_absent[_string](filter, candidates)}. */
  public static Column column(Column filter, Column candidates, boolean strings) {
    return ColumnExpressions.call(args -> new RetainAbsentExpression(args.get(0), args.get(1), strings),
        filter, candidates);
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(filter, candidates);
  }

  @Override
  public DataType dataType() {
    return strings ? STRINGS : LONGS;
  }

  /** Null only for null candidates: a null filter keeps them all. */
  @Override
  public boolean nullable() {
    return candidates.nullable();
  }

  @Override
  public String prettyName() {
    return strings ? STRING_NAME : NAME;
  }

  @Override
  public Object eval(InternalRow row) {
    ArrayData array = (ArrayData) candidates.eval(row);
    if (array == null) {
      return null;
    }
    ArrayType type = (ArrayType) candidates.dataType();
    if (strings) {
      UTF8String[] keys = CatalystStrings.withoutNulls(array, type, STRING_NAME,
          " (for integer candidates call " + NAME + ")");
      byte[] bytes = (byte[]) filter.eval(row);
      return new GenericArrayData(bytes == null || keys.length == 0 ? keys : retainAbsent(bytes, keys));
    }
    long[] keys = CatalystLongs.withoutNulls(array, type, NAME);
    byte[] bytes = (byte[]) filter.eval(row);
    if (bytes != null && keys.length > 0) {
      try (BloomFilter f = CatalystFilters.read(bytes, NAME)) {
        keys = f.retainAbsent(keys);
      }
    }
    return UnsafeArrayData.fromPrimitiveArray(keys);
  }

  /** The keys {@code filterBytes} has definitely not seen, in order. */
  private static Object[] retainAbsent(byte[] filterBytes, UTF8String[] keys) {
    boolean[] seen;
    try (BloomFilter f = CatalystFilters.read(filterBytes, STRING_NAME)) {
      seen = f.mightContainAll(CatalystStrings.decoded(keys));
    }
    int kept = 0;
    for (int i = 0; i < keys.length; i++) {
      if (!seen[i]) {
        keys[kept++] = keys[i];
      }
    }
    return java.util.Arrays.copyOf(keys, kept, Object[].class);
  }

  @Override
  Object[] fields() {
    return new Object[] {filter, candidates, strings};
  }

  @Override
  Expression withChildren(Expression[] children) {
    return new RetainAbsentExpression(children[0], children[1], strings);
  }
}
