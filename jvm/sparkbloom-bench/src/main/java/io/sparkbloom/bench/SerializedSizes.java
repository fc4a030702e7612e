package io.sparkbloom.bench;

/**
 * Prints, as one JSON object, the bytes of each filter of {@link SerializationBench} under Java
 * serialization and under its own format: {@code {"impl/shape": {"java": N, "own": N}, ...}}.
 * {@code scripts/bench_table.py} puts them beside the round-trip times.
 *
 * <p>Run: {@code java -cp target/benchmarks.jar io.sparkbloom.bench.SerializedSizes [shape ...]}
 */
public final class SerializedSizes {
  private SerializedSizes() {}

  public static void main(String[] args) throws Exception {
    String[] impls = {Impl.SPARKBLOOM, Impl.GUAVA, Impl.SPARK_V1, Impl.SPARK_V2};
    String[] shapes =
        args.length > 0 ? args : new String[] {"n1e4_p1e-3", "n1e4_p1e-3_sparse", "n1e7_p1e-2"};
    StringBuilder json = new StringBuilder("{");
    for (String impl : impls) {
      for (String shape : shapes) {
        try (Impl filter = SerializationBench.filled(impl, shape)) {
          int java = SerializationBench.javaRoundTrip(filter.serializable(), 0).size;
          int own = filter.toBytes().length;
          if (json.length() > 1) {
            json.append(",\n ");
          }
          json.append(String.format("\"%s/%s\": {\"java\": %d, \"own\": %d}", impl, shape, java, own));
        }
      }
    }
    System.out.println(json.append("}"));
  }
}
