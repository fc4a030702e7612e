package io.sparkbloom.spark;

/** {@link CountingFiltersTest} with Kryo, {@link SparkBloomKryoRegistrator} and registrationRequired. */
class CountingFiltersKryoTest extends CountingFiltersTest {
  @Override
  String[] conf() {
    return new String[] {
      "spark.serializer", "org.apache.spark.serializer.KryoSerializer",
      "spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName(),
      "spark.kryo.registrationRequired", "true"
    };
  }
}
