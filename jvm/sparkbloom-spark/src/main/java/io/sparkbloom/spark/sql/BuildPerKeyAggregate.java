package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.NullType;

/**
 * {@code sparkbloom_build_per_key(item BIGINT | INT | SMALLINT | TINYINT, p NUMERIC) -> BINARY}
 * as a Catalyst aggregate: each group's items gathered in a primitive {@code long[]} ({@link
 * PerKeyItems}), read from the input row by their SQL type ({@link CatalystLongs}), and the
 * group's filter sized for its own distinct count at p when the group is done, so the bytes are
 * those of {@code Sizing.perKeyCount(p).build(items)}, as the RDD helpers build them. Between the
 * partial and the final phase a buffer travels as its raw items, 8 bytes each.
 *
 * <p>The {@code ScalaAggregator} form of the same function decodes every row into a {@code
 * Tuple2<Long, Double>} and Java-serializes the buffer whenever Spark moves it (the shuffle, and
 * the sort-based aggregation Spark falls back to once a task holds many groups); this one reads
 * the row's fields in place and writes the buffer as one array copy.
 *
 * <p>Same rules as the UDF form: null items are skipped; p must be non-null and the same for
 * every row of a group; a global aggregate over no rows gives null.
 */
public final class BuildPerKeyAggregate extends TypedImperativeAggregate<PerKeyItems>
    implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  /** The SQL name ({@code BloomFunctions.BUILD_PER_KEY}). */
  public static final String NAME = "sparkbloom_build_per_key";

  private final Expression item;
  private final Expression p;
  private final int mutableAggBufferOffset;
  private final int inputAggBufferOffset;
  /** p when it is a constant, read at the first row; NaN until then or when it is not one. */
  private transient double constantP = Double.NaN;

  public BuildPerKeyAggregate(Expression item, Expression p) {
    this(item, p, 0, 0);
  }

  /** The constructor of every field ({@code TreeNode.makeCopy} finds it by the arity). */
  public BuildPerKeyAggregate(Expression item, Expression p, int mutableAggBufferOffset,
      int inputAggBufferOffset) {
    this.item = item;
    this.p = p;
    this.mutableAggBufferOffset = mutableAggBufferOffset;
    this.inputAggBufferOffset = inputAggBufferOffset;
  }

  @Override
  public PerKeyItems createAggregationBuffer() {
    return new PerKeyItems();
  }

  /**
   * @throws IllegalArgumentException if p is null, not in (0, 1), or differs from the group's
   *     earlier rows'
   */
  @Override
  public PerKeyItems update(PerKeyItems buffer, InternalRow input) {
    buffer.configure(p(input));
    DataType type = item.dataType();
    if (type instanceof NullType) {
      return buffer;
    }
    if (item instanceof BoundReference) {
      int ordinal = ((BoundReference) item).ordinal();
      if (!input.isNullAt(ordinal)) {
        buffer.add(CatalystLongs.reader(type, NAME, "item").at(input, ordinal));
      }
      return buffer;
    }
    Object value = item.eval(input);
    if (value != null) {
      buffer.add(SqlItems.integral(value, NAME, "item"));
    }
    return buffer;
  }

  private double p(InternalRow input) {
    if (!Double.isNaN(constantP)) {
      return constantP;
    }
    Object value = p.eval(input);
    if (value == null) {
      throw new IllegalArgumentException(NAME + "(item, p): p must not be null");
    }
    double v = value instanceof Decimal ? ((Decimal) value).toDouble() : ((Number) value).doubleValue();
    if (p.foldable()) {
      constantP = v;
    }
    return v;
  }

  @Override
  public PerKeyItems merge(PerKeyItems buffer, PerKeyItems input) {
    return buffer.merge(input);
  }

  @Override
  public Object eval(PerKeyItems buffer) {
    return buffer.buildBytes();
  }

  @Override
  public byte[] serialize(PerKeyItems buffer) {
    return buffer.toBytes();
  }

  @Override
  public PerKeyItems deserialize(byte[] bytes) {
    return PerKeyItems.fromBytes(bytes);
  }

  @Override
  public DataType dataType() {
    return DataTypes.BinaryType;
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(item, p);
  }

  /** In plans, {@code sparkbloom_build_per_key(item, p)}: the buffer offsets left out. */
  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public scala.collection.Iterator<Object> stringArgs() {
    return (scala.collection.Iterator) children().iterator();
  }

  @Override
  public int mutableAggBufferOffset() {
    return mutableAggBufferOffset;
  }

  @Override
  public int inputAggBufferOffset() {
    return inputAggBufferOffset;
  }

  @Override
  public BuildPerKeyAggregate withNewMutableAggBufferOffset(int offset) {
    return new BuildPerKeyAggregate(item, p, offset, inputAggBufferOffset);
  }

  @Override
  public BuildPerKeyAggregate withNewInputAggBufferOffset(int offset) {
    return new BuildPerKeyAggregate(item, p, mutableAggBufferOffset, offset);
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.13 (an overload, unused, on 2.12). */
  public BuildPerKeyAggregate withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<Expression> children) {
    return new BuildPerKeyAggregate(children.apply(0), children.apply(1),
        mutableAggBufferOffset, inputAggBufferOffset);
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.12 (an overload, unused, on 2.13). */
  public BuildPerKeyAggregate withNewChildrenInternal(scala.collection.IndexedSeq<Expression> children) {
    return new BuildPerKeyAggregate(children.apply(0), children.apply(1),
        mutableAggBufferOffset, inputAggBufferOffset);
  }

  // Product, as a case class would define it: Catalyst's tree operations read the fields so

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return item;
      case 1:
        return p;
      case 2:
        return mutableAggBufferOffset;
      case 3:
        return inputAggBufferOffset;
      default:
        throw new IndexOutOfBoundsException(Integer.toString(n));
    }
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof BuildPerKeyAggregate;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof BuildPerKeyAggregate)) {
      return false;
    }
    BuildPerKeyAggregate o = (BuildPerKeyAggregate) other;
    return item.equals(o.item) && p.equals(o.p) && mutableAggBufferOffset == o.mutableAggBufferOffset
        && inputAggBufferOffset == o.inputAggBufferOffset;
  }

  @Override
  public int hashCode() {
    return ((item.hashCode() * 31 + p.hashCode()) * 31 + mutableAggBufferOffset) * 31
        + inputAggBufferOffset;
  }
}
