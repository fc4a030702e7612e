package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import java.util.Arrays;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StringType;

/**
 * {@code sparkbloom_might_contain(filter BINARY, item BIGINT | INT | SMALLINT | TINYINT | STRING)
 * -> BOOLEAN} as a Catalyst expression: the item is read from the row by its SQL type, an integer
 * hashed as {@code BloomFilter.mightContain(long)}, a string as {@code mightContain(String)}, with
 * none of the {@code ScalaUDF} form's conversions to Java objects.
 *
 * <p>Same answers as the UDF form: a null item gives null; a null filter (nothing seen) gives
 * false. Evaluated by {@link #eval} also inside generated code ({@link TypedExpression}): decoding
 * the filter outweighs a generated call's savings. The last filter decoded is kept for the next
 * rows while their bytes are the same (a constant filter; rows a sort-merge join groups by user),
 * so such a run of rows decodes it once; the kept filter's memory is freed when the expression
 * is collected, or when another filter replaces it.
 */
public final class MightContainExpression extends TypedExpression {
  private static final long serialVersionUID = 1L;
  /** SQL {@code sparkbloom_might_contain}. */
  public static final String NAME = "sparkbloom_might_contain";

  private final Expression filter;
  private final Expression item;
  /** The bytes of the filter decoded last, and that filter; guarded by {@code this}. */
  private transient byte[] lastBytes;
  private transient BloomFilter lastFilter;

  public MightContainExpression(Expression filter, Expression item) {
    this.filter = filter;
    this.item = item;
  }

  /** The column {@code sparkbloom_might_contain(filter, item)}. */
  public static Column column(Column filter, Column item) {
    return ColumnExpressions.call(args -> new MightContainExpression(args.get(0), args.get(1)),
        filter, item);
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(filter, item);
  }

  @Override
  public DataType dataType() {
    return DataTypes.BooleanType;
  }

  /** Null only for a null item: a null filter answers false. */
  @Override
  public boolean nullable() {
    return item.nullable();
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public Object eval(InternalRow row) {
    DataType type = item.dataType();
    Object value = item.eval(row);
    if (value == null || type instanceof NullType) {
      return null;
    }
    boolean string = type instanceof StringType;
    if (!string && !SqlItems.isIntegral(value)) {
      throw SqlItems.unsupported(value, NAME, "item", "int, bigint or string");
    }
    long key = string ? 0 : ((Number) value).longValue();
    byte[] bytes = (byte[]) filter.eval(row);
    if (bytes == null) {
      return false;
    }
    synchronized (this) { // one expression may serve several threads; each call holds the filter
      if (lastFilter == null || !Arrays.equals(lastBytes, bytes)) {
        BloomFilter decoded = CatalystFilters.read(bytes, NAME);
        if (lastFilter != null) {
          lastFilter.close();
        }
        lastFilter = decoded;
        lastBytes = bytes.clone(); // a row may hand out a buffer it later reuses
      }
      return string ? lastFilter.mightContain(value.toString()) : lastFilter.mightContain(key);
    }
  }

  @Override
  Object[] fields() {
    return new Object[] {filter, item};
  }

  @Override
  Expression withChildren(Expression[] children) {
    return new MightContainExpression(children[0], children[1]);
  }
}
