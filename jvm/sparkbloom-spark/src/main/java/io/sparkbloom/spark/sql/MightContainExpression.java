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
 * no conversion to Java objects.
 *
 * <p>A null item gives null; a null filter (nothing seen) gives false. Non-null filter bytes are
 * always read, whatever the item: bytes that are not a filter, or a filter larger than {@value
 * SqlDecodeLimit#KEY} allows (the limit when the call was built), fail the query naming the
 * function. String items must have the default collation ({@link Collations}). Evaluated by {@link
 * #eval} also inside generated code ({@link TypedExpression}): decoding the filter outweighs a
 * generated call's savings. The last filter decoded is kept for the next rows while their bytes
 * are the same (a constant filter; rows a sort-merge join groups by user), so such a run of rows
 * decodes it once; the kept filter's memory is freed when the expression is collected, or when
 * another filter replaces it.
 */
public final class MightContainExpression extends TypedExpression {
  private static final long serialVersionUID = 1L;
  /** SQL {@code sparkbloom_might_contain}. */
  public static final String NAME = "sparkbloom_might_contain";

  private final Expression filter;
  private final Expression item;
  /** The largest filter decoded, in bits ({@link SqlDecodeLimit}). */
  private final long maxNumBits;
  /** The bytes of the filter decoded last, and that filter; guarded by {@code this}. */
  private transient byte[] lastBytes;
  private transient BloomFilter lastFilter;

  /** The call over {@code filter} and {@code item}, under the current session's decode limit. */
  public MightContainExpression(Expression filter, Expression item) {
    this(filter, item, SqlDecodeLimit.current());
  }

  /** The constructor of every field ({@code TreeNode.makeCopy} finds it by the arity). */
  public MightContainExpression(Expression filter, Expression item, long maxNumBits) {
    this.filter = filter;
    this.item = item;
    this.maxNumBits = maxNumBits;
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
    Object value = type instanceof NullType ? null : item.eval(row);
    boolean string = type instanceof StringType;
    if (value != null && !string && !SqlItems.isIntegral(value)) {
      throw SqlItems.unsupported(value, NAME, "item", "int, bigint or string");
    }
    byte[] bytes = (byte[]) filter.eval(row);
    if (bytes == null) {
      return value == null ? null : false;
    }
    synchronized (this) { // one expression may serve several threads; each call holds the filter
      if (lastFilter == null || !Arrays.equals(lastBytes, bytes)) {
        BloomFilter decoded = CatalystFilters.read(bytes, NAME, maxNumBits);
        if (lastFilter != null) {
          lastFilter.close();
        }
        lastFilter = decoded;
        lastBytes = bytes.clone(); // a row may hand out a buffer it later reuses
      }
      if (value == null) {
        return null;
      }
      return string ? lastFilter.mightContain(value.toString())
          : lastFilter.mightContain(((Number) value).longValue());
    }
  }

  @Override
  Object[] fields() {
    return new Object[] {filter, item, maxNumBits};
  }

  @Override
  Expression withChildren(Expression[] children) {
    return new MightContainExpression(children[0], children[1], maxNumBits);
  }
}
