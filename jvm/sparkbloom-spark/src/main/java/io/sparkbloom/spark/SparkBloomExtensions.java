package io.sparkbloom.spark;

import io.sparkbloom.spark.sql.CoreJarCheck;
import io.sparkbloom.spark.sql.SparkBloomSql;
import io.sparkbloom.spark.sql.SqlFunction;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Registers every sparkbloom SQL function in every session of an application, including the
 * sessions of a Spark Connect server and of the Thrift server, which no {@link
 * BloomFunctions#register} call can reach:
 *
 * <pre>
 * spark-sql --jars sparkbloom.jar,sparkbloom-spark_2.13.jar \
 *   --conf spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions
 * </pre>
 *
 * <p>The functions are the catalogue {@link SparkBloomSql#functions()}, the one {@link
 * BloomFunctions#register} registers: the seven of {@link BloomFunctions} and {@value
 * SparkBloomSql#MERGE} and {@value SparkBloomSql#COUNT}. They enter each session's function
 * registry as built-in functions do (they shadow a persistent function of the same name);
 * {@code BloomFunctions.register} on such a session adds the same functions as temporary ones.
 * The Spark 3.5 / Scala 2.12 artifact ({@code sparkbloom-spark_2.12}) takes the same setting.
 */
public final class SparkBloomExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  /**
   * @throws IllegalStateException if the core jar is not on the classpath: the session then fails
   *     to start with that message instead of every query failing later
   */
  @Override
  @SuppressWarnings("unchecked")
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    CoreJarCheck.requireCoreJar();
    for (SqlFunction function : SparkBloomSql.functions()) {
      extensions.injectFunction(function.injection());
    }
    return BoxedUnit.UNIT;
  }
}
