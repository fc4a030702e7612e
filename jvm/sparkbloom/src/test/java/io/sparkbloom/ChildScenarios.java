package io.sparkbloom;

import java.util.Map;

/** The scenarios a child-JVM main runs, by the name its argument starts with. */
final class ChildScenarios {
  private ChildScenarios() {}

  /** One scenario, given the text after the name's colon ({@code null} without one). */
  interface Scenario {
    void run(String argument) throws Exception;
  }

  /** Runs the scenario {@code nameAndArgument} ("name" or "name:argument") names. */
  static void run(String nameAndArgument, Map<String, Scenario> scenarios) throws Exception {
    String[] parts = nameAndArgument.split(":", 2);
    Scenario scenario = scenarios.get(parts[0]);
    if (scenario == null) {
      throw new IllegalArgumentException("no scenario " + parts[0] + " (" + scenarios.keySet() + ")");
    }
    scenario.run(parts.length == 2 ? parts[1] : null);
  }
}
