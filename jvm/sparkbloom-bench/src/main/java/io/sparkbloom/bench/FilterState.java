package io.sparkbloom.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;

/** A JMH state holding one filter of one implementation, closed after the trial. */
public abstract class FilterState {
  Impl filter;

  @TearDown(Level.Trial)
  public void tearDown() {
    filter.close();
  }
}
