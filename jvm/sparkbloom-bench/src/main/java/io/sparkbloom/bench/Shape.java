package io.sparkbloom.bench;

/** The two filter shapes benchmarked, named as in the criterion benchmarks. */
enum Shape {
  /** The per-user dedup filter: 17.6 KiB, lives in L1/L2. */
  n1e4_p1e_3(10_000, 1e-3),
  /** 11.4 MiB: out of cache, every probe a cache miss unless a batch overlaps them. */
  n1e7_p1e_2(10_000_000, 1e-2);

  final long n;
  final double p;

  Shape(long n, double p) {
    this.n = n;
    this.p = p;
  }

  /** The JMH parameter value, "n1e4_p1e-3" (the criterion group suffix). */
  static Shape of(String param) {
    return valueOf(param.replace('-', '_'));
  }
}
