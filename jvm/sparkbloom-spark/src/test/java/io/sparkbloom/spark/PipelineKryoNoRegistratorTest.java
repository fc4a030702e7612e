package io.sparkbloom.spark;

/**
 * The per-user pipeline with Kryo and no registrator: BloomFilter carries its serializer as
 * {@code @DefaultSerializer}, FilterBuilder is KryoSerializable.
 */
class PipelineKryoNoRegistratorTest extends AbstractPipelineTest {
  @Override
  String[] conf() {
    return new String[] {"spark.serializer", "org.apache.spark.serializer.KryoSerializer"};
  }
}
