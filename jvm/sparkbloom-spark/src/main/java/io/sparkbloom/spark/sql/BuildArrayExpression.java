package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;

/**
 * {@code sparkbloom_build_array(items ARRAY<integer type | STRING>, p) -> BINARY} and {@code
 * sparkbloom_build_array(items, n, p)}: the FORMAT.md bytes of one filter holding a row's array of
 * items, for history already held as one array per key, with no {@code GROUP BY}. With p alone
 * the filter is sized for the array's distinct items ({@code Sizing.perKeyCount(p)}), so its bytes
 * are those {@code sparkbloom_build_per_key} gives a group of the same items; with n and p it is
 * sized as {@code sparkbloom_build} sizes it. Integer items are hashed as the {@code long} of the
 * value, strings as {@code BloomFilter.put(String)} hashes them.
 *
 * <p>A {@code bigint} array without nulls is copied out of Spark's array in one piece and built
 * with one {@code putAll} call. A null array gives null; null elements are skipped, as the
 * aggregates skip null items; an array with no items gives an empty filter of the sizing. The
 * sizing arguments must not be null; constant ones are checked when the call is built ({@link
 * SqlFunction#build}), others row by row with the same messages. String items
 * must have the default collation ({@link Collations}). Evaluated by {@link #eval} also inside
 * generated code ({@link TypedExpression}): the work per row is one native build over the whole
 * array.
 */
public final class BuildArrayExpression extends TypedExpression {
  private static final long serialVersionUID = 1L;
  /** SQL {@code sparkbloom_build_array}. */
  public static final String NAME = "sparkbloom_build_array";

  /** (items, p) or (items, n, p). */
  private final Expression[] arguments;
  /** The sizing of the last row, reused while n and p stay the same. */
  private transient Sizing sizing;

  /** {@code sparkbloom_build_array(arguments...)}: (items, p) or (items, n, p). */
  public BuildArrayExpression(List<Expression> arguments) {
    this(CatalystTrees.seq(arguments.toArray(new Expression[0])));
  }

  /** The constructor of every field ({@code TreeNode.makeCopy} finds it by the arity). */
  public BuildArrayExpression(scala.collection.Seq<Expression> arguments) {
    if (arguments.length() != 2 && arguments.length() != 3) {
      throw new IllegalArgumentException(NAME + " takes 2 or 3 arguments, got " + arguments.length());
    }
    this.arguments = CatalystTrees.toArray(arguments);
  }

  /** The column {@code sparkbloom_build_array(items, p)}. */
  public static Column column(Column items, Column p) {
    return ColumnExpressions.call(BuildArrayExpression::new, items, p);
  }

  /** The column {@code sparkbloom_build_array(items, n, p)}. */
  public static Column column(Column items, Column n, Column p) {
    return ColumnExpressions.call(BuildArrayExpression::new, items, n, p);
  }

  private boolean perKey() {
    return arguments.length == 2;
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(arguments);
  }

  @Override
  public DataType dataType() {
    return DataTypes.BinaryType;
  }

  /** Null only for a null array. */
  @Override
  public boolean nullable() {
    return arguments[0].nullable();
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  /**
   * @throws IllegalArgumentException naming the call and the argument if a sizing argument is
   *     null or refused, or the elements are of a type the function does not hash
   */
  @Override
  public Object eval(InternalRow row) {
    ArrayData array = (ArrayData) arguments[0].eval(row);
    if (array == null) {
      return null;
    }
    Sizing s = sizing(row);
    ArrayType type = (ArrayType) arguments[0].dataType();
    BloomFilter f;
    if (type.elementType() instanceof StringType) {
      String[] items = CatalystStrings.decoded(CatalystStrings.withoutNulls(array, type, NAME, ""));
      f = s.create(s.isPerKeyCount() ? new HashSet<>(Arrays.asList(items)).size() : 0);
      if (items.length > 0) {
        f.putAll(items);
      }
    } else {
      f = s.build(CatalystLongs.withoutNulls(array, type, NAME, "items' elements"));
    }
    try {
      return f.toByteArray();
    } finally {
      f.close();
    }
  }

  /** The call as errors name it. */
  private String call() {
    return NAME + (perKey() ? "(items, p)" : "(items, n, p)");
  }

  private Sizing sizing(InternalRow row) {
    Object p = arguments[arguments.length - 1].eval(row);
    Object n = perKey() ? null : arguments[1].eval(row);
    if (p == null || (!perKey() && n == null)) {
      throw SqlSizing.isNull(call());
    }
    double fpp = SqlSizing.toDouble(p);
    long count = n == null ? 0 : SqlSizing.toLong(n);
    // one read of the field: a thread never answers with a sizing another thread made for other
    // arguments (fixed sizing's expectedInsertions(0) is its n)
    Sizing s = sizing;
    if (s == null || s.fpp() != fpp || (!perKey() && s.expectedInsertions(0) != count)) {
      s = perKey() ? SqlSizing.perKey(call(), fpp) : SqlSizing.fixed(call(), count, fpp);
      sizing = s;
    }
    return s;
  }

  @Override
  Object[] fields() {
    return new Object[] {children()};
  }

  @Override
  Expression withChildren(Expression[] children) {
    return new BuildArrayExpression(CatalystTrees.seq(children));
  }
}
