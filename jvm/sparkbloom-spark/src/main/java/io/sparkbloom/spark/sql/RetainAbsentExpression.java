package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code sparkbloom_retain_absent(filter BINARY, candidates ARRAY<BIGINT | INT | SMALLINT |
 * TINYINT>) -> ARRAY<BIGINT>} as a Catalyst expression: the candidates are read from Spark's own
 * array as a primitive {@code long[]} ({@link CatalystLongs}), answered in one native call, and
 * returned as an {@link UnsafeArrayData} over the kept {@code long[]}; no element is boxed on the
 * way, where the {@code ScalaUDF} form converts every candidate to a {@code Long} in a Scala
 * {@code Seq} and back.
 *
 * <p>Same answers as {@code BloomFunctions.RetainAbsent}: null candidates give null; null
 * elements are dropped; a null filter (a key with no history) keeps every candidate; order is
 * kept. The argument types are checked when the call is built ({@link SqlFunction}, {@link
 * SqlArgumentCheck}); the element type is read from the resolved candidates here.
 *
 * <p>Evaluated by {@link #eval} also inside generated code ({@link CodegenFallback}): the work per
 * row is one native call over the whole array, so a generated call would save nothing measurable.
 */
public final class RetainAbsentExpression extends Expression
    implements CodegenFallback, java.io.Serializable {
  private static final long serialVersionUID = 1L;
  /** The SQL name ({@code BloomFunctions.RETAIN_ABSENT}). */
  public static final String NAME = "sparkbloom_retain_absent";
  private static final ArrayType RESULT = DataTypes.createArrayType(DataTypes.LongType, false);

  private final Expression filter;
  private final Expression candidates;

  public RetainAbsentExpression(Expression filter, Expression candidates) {
    this.filter = filter;
    this.candidates = candidates;
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(filter, candidates);
  }

  @Override
  public DataType dataType() {
    return RESULT;
  }

  /** Null only for null candidates: a null filter keeps them all. */
  @Override
  public boolean nullable() {
    return candidates.nullable();
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public Object eval(InternalRow row) {
    ArrayData array = (ArrayData) candidates.eval(row);
    if (array == null) {
      return null;
    }
    long[] keys = CatalystLongs.withoutNulls(array, (ArrayType) candidates.dataType(),
        NAME);
    byte[] bytes = (byte[]) filter.eval(row);
    if (bytes != null && keys.length > 0) {
      keys = retainAbsent(bytes, keys);
    }
    return UnsafeArrayData.fromPrimitiveArray(keys);
  }

  /** The keys {@code filterBytes} has definitely not seen, in order. */
  static long[] retainAbsent(byte[] filterBytes, long[] keys) {
    try (BloomFilter f = BloomFilter.fromByteArray(filterBytes)) {
      return f.retainAbsent(keys);
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException(NAME + ": not a sparkbloom filter ("
          + e.getMessage() + ")", e);
    }
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    return CodegenFallback.super.doGenCode(ctx, ev);
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.13 (an overload, unused, on 2.12). */
  public RetainAbsentExpression withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<Expression> children) {
    return new RetainAbsentExpression(children.apply(0), children.apply(1));
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.12 (an overload, unused, on 2.13). */
  public RetainAbsentExpression withNewChildrenInternal(scala.collection.IndexedSeq<Expression> children) {
    return new RetainAbsentExpression(children.apply(0), children.apply(1));
  }

  // Product, as a case class would define it: Catalyst's tree operations read the children so

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return filter;
      case 1:
        return candidates;
      default:
        throw new IndexOutOfBoundsException(Integer.toString(n));
    }
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof RetainAbsentExpression;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RetainAbsentExpression
        && filter.equals(((RetainAbsentExpression) other).filter)
        && candidates.equals(((RetainAbsentExpression) other).candidates);
  }

  @Override
  public int hashCode() {
    return 31 * filter.hashCode() + candidates.hashCode();
  }
}
