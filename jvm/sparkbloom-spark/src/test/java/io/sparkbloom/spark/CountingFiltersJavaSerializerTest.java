package io.sparkbloom.spark;

/** {@link CountingFiltersTest} with Spark's default Java serialization. */
class CountingFiltersJavaSerializerTest extends CountingFiltersTest {
  @Override
  String[] conf() {
    return new String[0];
  }
}
