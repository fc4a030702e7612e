package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No per-key group stops the application: {@link GroupBoundApp} in a child JVM of a small
 * executor's heap ({@value #HEAP}, {@code local[2]}), where a group too large to buffer once ended
 * the JVM (Spark exits for an {@code OutOfMemoryError}, thrown or chained). The child must run
 * every check and exit 0; a JVM that Spark stopped exits 52 before its last line.
 */
class GroupBoundTest {
  static final String HEAP = "-Xmx512m";

  @Test
  void oversizedGroupsFailTheirJobsAndTheApplicationCarriesOn() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // this JVM's flags for Spark on Java 17+ (--add-opens, ...) and its system properties, not its heap
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-") || arg.startsWith("-D") || arg.equals("-XX:+IgnoreUnrecognizedVMOptions")) {
        command.add(arg);
      }
    }
    command.add(HEAP);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(GroupBoundApp.class.getName());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    // a safety net against a hung child, not a timing assertion
    assertTrue(process.waitFor(10, TimeUnit.MINUTES), "the child JVM did not exit");
    List<String> lines = output.lines().filter(l -> l.startsWith(GroupBoundApp.PREFIX))
        .collect(java.util.stream.Collectors.toList());
    String report = "exit " + process.exitValue() + ", " + lines + "\n" + output;
    assertEquals(0, process.exitValue(), report);
    for (String check : GroupBoundApp.CHECKS) {
      assertTrue(lines.contains(GroupBoundApp.PREFIX + "ok " + check), check + ": " + report);
    }
    assertTrue(lines.contains(GroupBoundApp.PREFIX + "DONE"), report);
    System.out.println("[group-bound] " + lines);
  }
}
