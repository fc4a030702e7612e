package io.sparkbloom.spark;

/** The per-user pipeline with Spark's default Java serializer. */
class PipelineJavaSerializerTest extends AbstractPipelineTest {
  @Override
  String[] conf() {
    return new String[] {};
  }
}
