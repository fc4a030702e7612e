package io.sparkbloom.spark.sql;

import io.sparkbloom.spark.Sizing;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NullType;

/**
 * The build aggregates as one Catalyst aggregate, the SQL name choosing the sizing and the item
 * kind:
 *
 * <ul>
 *   <li>{@value #PER_KEY}{@code (item BIGINT | INT | SMALLINT | TINYINT, p NUMERIC)}: each group's
 *       distinct items gathered in a primitive {@code long[]} ({@link PerKeyItems}: memory that
 *       follows the distinct items, not the rows) and its filter sized for their count at p when
 *       the group is done, the bytes of {@code Sizing.perKeyCount(p).build(items)} (with the
 *       DataFrame helper's headroom, {@code perKeyCount(p).withHeadroom(h)}'s);
 *   <li>{@value #FIXED}{@code (item <integer type>, n, p)} and {@value #FIXED_STRING}{@code (item
 *       STRING, n, p)}: a filter sized for n items at p, built by a {@code FilterBuilder} or
 *       {@code StringFilterBuilder} ({@link FixedItems}), which flushes items into it in batches.
 * </ul>
 *
 * Integer items are read from the input row by their SQL type ({@link CatalystLongs}), strings
 * from Spark's UTF-8 string; the buffer travels between the partial and the final phase as raw
 * bytes ({@link BuildBuffer#toBytes}).
 *
 * <p>Null items are skipped; the sizing arguments must be non-null and the same for every row of
 * a group; a global aggregate over no rows gives null. Constant sizing arguments are checked when
 * the call is built ({@link SqlFunction#build}); others row by row, with the same messages naming
 * the call and the argument ({@link SqlSizing}). String items must have the default collation
 * ({@link Collations}).
 *
 * <p>{@value #PER_KEY} buffers at most {@link PerKeyBufferLimit}'s distinct items per group (the
 * session's {@value PerKeyBufferLimit#KEY} when the call is built, carried in the aggregate): a
 * larger group fails its task naming the call and the limit.
 */
public final class BuildAggregate extends TypedImperativeAggregate<BuildBuffer>
    implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  /** SQL {@code sparkbloom_build_per_key(item, p)}. */
  public static final String PER_KEY = "sparkbloom_build_per_key";
  /** SQL {@code sparkbloom_build(item, n, p)}. */
  public static final String FIXED = "sparkbloom_build";
  /** SQL {@code sparkbloom_build_string(item, n, p)}. */
  public static final String FIXED_STRING = "sparkbloom_build_string";

  private final String name;
  /** (item, p) for {@value #PER_KEY}, else (item, n, p). */
  private final Expression[] arguments;
  private final int mutableAggBufferOffset;
  private final int inputAggBufferOffset;
  /** The most distinct items a {@value #PER_KEY} group buffers ({@link PerKeyBufferLimit}); 0 for the others. */
  private final int maxBufferedItems;
  /** The headroom of a {@value #PER_KEY} filter ({@link Sizing#withHeadroom}); 1 from SQL. */
  private final double headroom;
  /** The sizing arguments' values when they are constants, read at the first row. */
  private transient Object[] constants;

  /**
   * {@code name(arguments...)}: {@value #PER_KEY}, {@value #FIXED} or {@value #FIXED_STRING}; the
   * per-key form with the current session's {@link PerKeyBufferLimit}.
   *
   * @throws IllegalArgumentException naming {@value PerKeyBufferLimit#KEY} if its value is not a
   *     limit
   */
  public BuildAggregate(String name, List<Expression> arguments) {
    this(name, arguments, 1.0);
  }

  private BuildAggregate(String name, List<Expression> arguments, double headroom) {
    this(name, CatalystTrees.seq(arguments.toArray(new Expression[0])), 0, 0,
        name.equals(PER_KEY) ? PerKeyBufferLimit.ofSession() : 0, headroom);
  }

  /**
   * The aggregate column {@code name(arguments...)}, as SQL builds it: how the DataFrame helpers
   * of {@code BloomFunctions} reach the typed aggregate without the function being registered.
   */
  public static Column column(String name, Column... arguments) {
    return ColumnExpressions.call(args -> new BuildAggregate(name, args).toAggregateExpression(), arguments);
  }

  /** The aggregate column {@value #PER_KEY}{@code (item, p)} sized by {@code sizing}, headroom and all. */
  public static Column perKey(Column item, Sizing sizing) {
    return ColumnExpressions.call(args -> new BuildAggregate(PER_KEY, args, sizing.headroom())
        .toAggregateExpression(), item, functions.lit(sizing.fpp()));
  }

  /** The constructor of every field ({@code TreeNode.makeCopy} finds it by the arity). */
  public BuildAggregate(String name, scala.collection.Seq<Expression> arguments,
      int mutableAggBufferOffset, int inputAggBufferOffset, int maxBufferedItems, double headroom) {
    int arity = name.equals(PER_KEY) ? 2 : 3;
    if (!name.equals(PER_KEY) && !name.equals(FIXED) && !name.equals(FIXED_STRING)) {
      throw new IllegalArgumentException("not a sparkbloom build aggregate: " + name);
    }
    if (arguments.length() != arity) {
      throw new IllegalArgumentException(name + " takes " + arity + " arguments, got " + arguments.length());
    }
    this.name = name;
    this.arguments = CatalystTrees.toArray(arguments);
    this.mutableAggBufferOffset = mutableAggBufferOffset;
    this.inputAggBufferOffset = inputAggBufferOffset;
    this.maxBufferedItems = maxBufferedItems;
    this.headroom = headroom;
  }

  private boolean perKey() {
    return arguments.length == 2;
  }

  private boolean strings() {
    return name.equals(FIXED_STRING);
  }

  @Override
  public BuildBuffer createAggregationBuffer() {
    return perKey() ? new PerKeyItems(maxBufferedItems, headroom) : new FixedItems(strings());
  }

  /**
   * @throws IllegalArgumentException naming the call and the argument if a sizing argument is
   *     null, refused by the core, or differs from the group's earlier rows'; naming the call and
   *     the limit if a per-key group has more distinct items than it buffers
   */
  @Override
  public BuildBuffer update(BuildBuffer buffer, InternalRow input) {
    if (perKey()) {
      ((PerKeyItems) buffer).configure(p(input));
    } else {
      ((FixedItems) buffer).configure(n(input), p(input));
    }
    Expression item = arguments[0];
    DataType type = item.dataType();
    if (type instanceof NullType) {
      return buffer;
    }
    if (strings()) {
      Object value = item.eval(input);
      if (value != null) {
        buffer.add(value.toString()); // decoded as the UDF form gets it, hashed as put(String)
      }
      return buffer;
    }
    if (item instanceof BoundReference) {
      int ordinal = ((BoundReference) item).ordinal();
      if (!input.isNullAt(ordinal)) {
        buffer.add(CatalystLongs.reader(type, name, "item").at(input, ordinal));
      }
      return buffer;
    }
    Object value = item.eval(input);
    if (value != null) {
      buffer.add(SqlItems.integral(value, name, "item"));
    }
    return buffer;
  }

  private double p(InternalRow input) {
    return SqlSizing.toDouble(sizing(arguments.length - 1, input));
  }

  private long n(InternalRow input) {
    return SqlSizing.toLong(sizing(1, input));
  }

  /** Sizing argument {@code i}'s value, never null; a constant's is read once. */
  private Object sizing(int i, InternalRow input) {
    if (constants == null) {
      constants = new Object[arguments.length];
    }
    Object value = constants[i];
    if (value == null) {
      value = arguments[i].eval(input);
      if (value == null) {
        throw nullSizing();
      }
      if (arguments[i].foldable()) {
        constants[i] = value;
      }
    }
    return value;
  }

  private IllegalArgumentException nullSizing() {
    return SqlSizing.isNull(perKey() ? PerKeyItems.CALL : name + "(item, n, p)");
  }

  @Override
  public BuildBuffer merge(BuildBuffer buffer, BuildBuffer input) {
    return buffer.merge(input);
  }

  @Override
  public Object eval(BuildBuffer buffer) {
    return buffer.buildBytes();
  }

  @Override
  public byte[] serialize(BuildBuffer buffer) {
    return buffer.toBytes();
  }

  @Override
  public BuildBuffer deserialize(byte[] bytes) {
    return perKey() ? PerKeyItems.fromBytes(bytes, maxBufferedItems, headroom)
        : FixedItems.fromBytes(bytes, strings());
  }

  /** Refuses string items of a collation other than UTF8_BINARY ({@link Collations}). */
  @Override
  public TypeCheckResult checkInputDataTypes() {
    return Collations.check(children());
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
    return name;
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CatalystTrees.seq(arguments);
  }

  /** In plans, {@code name(arguments...)}: the name and the buffer offsets left out. */
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
  public BuildAggregate withNewMutableAggBufferOffset(int offset) {
    return copy(children(), offset, inputAggBufferOffset);
  }

  @Override
  public BuildAggregate withNewInputAggBufferOffset(int offset) {
    return copy(children(), mutableAggBufferOffset, offset);
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.13 (an overload, unused, on 2.12). */
  public BuildAggregate withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<Expression> children) {
    return copy(children, mutableAggBufferOffset, inputAggBufferOffset);
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.12 (an overload, unused, on 2.13). */
  public BuildAggregate withNewChildrenInternal(scala.collection.IndexedSeq<Expression> children) {
    return copy(children, mutableAggBufferOffset, inputAggBufferOffset);
  }

  private BuildAggregate copy(scala.collection.Seq<Expression> children, int mutable, int input) {
    return new BuildAggregate(name, children, mutable, input, maxBufferedItems, headroom);
  }

  // Product, equality and hash over the constructor's arguments, as a case class defines them:
  // Catalyst's tree operations read the fields so.

  private Object[] fields() {
    return new Object[] {name, children(), mutableAggBufferOffset, inputAggBufferOffset,
        maxBufferedItems, headroom};
  }

  @Override
  public int productArity() {
    return fields().length;
  }

  @Override
  public Object productElement(int n) {
    return CatalystTrees.element(fields(), n);
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof BuildAggregate;
  }

  @Override
  public boolean equals(Object other) {
    return canEqual(other) && java.util.Arrays.equals(fields(), ((BuildAggregate) other).fields());
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(fields());
  }
}
