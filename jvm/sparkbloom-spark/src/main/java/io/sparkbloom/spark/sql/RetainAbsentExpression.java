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
 * {@code long[]}, or the kept strings themselves); no integer is boxed on the way. String
 * candidates are hashed as {@code BloomFilter.put(String)} hashes them.
 *
 * <p>Null candidates give null; null elements are dropped; a null filter (a key with no history)
 * keeps every candidate; order is kept. Non-null filter bytes are always read, whatever the
 * candidates (null or empty ones too): bytes that are not a filter, or a filter larger than
 * {@value SqlDecodeLimit#KEY} allows (the limit when the call was built), fail the query naming
 * the function. The argument types are checked when the call is built ({@link SqlFunction}),
 * string candidates' collation when the query is
 * analyzed ({@link Collations}); the element type is read from the resolved candidates here.
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
  /** The largest filter decoded, in bits ({@link SqlDecodeLimit}). */
  private final long maxNumBits;

  /** {@value #STRING_NAME} if {@code strings}, else {@value #NAME}; the current decode limit. */
  public RetainAbsentExpression(Expression filter, Expression candidates, boolean strings) {
    this(filter, candidates, strings, SqlDecodeLimit.current());
  }

  /** The constructor of every field ({@code TreeNode.makeCopy} finds it by the arity). */
  public RetainAbsentExpression(Expression filter, Expression candidates, boolean strings,
      long maxNumBits) {
    this.filter = filter;
    this.candidates = candidates;
    this.strings = strings;
    this.maxNumBits = maxNumBits;
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
    byte[] bytes = (byte[]) filter.eval(row);
    try (BloomFilter f = bytes == null ? null : CatalystFilters.read(bytes, prettyName(), maxNumBits)) {
      ArrayData array = (ArrayData) candidates.eval(row);
      if (array == null) {
        return null;
      }
      ArrayType type = (ArrayType) candidates.dataType();
      if (strings) {
        UTF8String[] keys = CatalystStrings.withoutNulls(array, type, STRING_NAME,
            " (for integer candidates call " + NAME + ")");
        return new GenericArrayData(f == null || keys.length == 0 ? keys : retainAbsent(f, keys));
      }
      long[] keys = CatalystLongs.withoutNulls(array, type, NAME);
      return UnsafeArrayData.fromPrimitiveArray(f == null || keys.length == 0 ? keys : f.retainAbsent(keys));
    }
  }

  /** The keys {@code filter} has definitely not seen, in order. */
  private static Object[] retainAbsent(BloomFilter filter, UTF8String[] keys) {
    boolean[] seen = filter.mightContainAll(CatalystStrings.decoded(keys));
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
    return new Object[] {filter, candidates, strings, maxNumBits};
  }

  @Override
  Expression withChildren(Expression[] children) {
    return new RetainAbsentExpression(children[0], children[1], strings, maxNumBits);
  }
}
