package io.sparkbloom.redis;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A private {@code redis-server} (the Debian package; scripts/test.sh installs it) on a free
 * loopback port, with its own data directory, for one test class.
 */
final class RedisServer implements AutoCloseable {
  final int port;
  final String password;
  private final Path dir;
  private Process process;

  private RedisServer(int port, String password, Path dir) {
    this.port = port;
    this.password = password;
    this.dir = dir;
  }

  static RedisServer start() throws IOException {
    return start(null);
  }

  static RedisServer start(String password) throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    RedisServer server = new RedisServer(port, password, Files.createTempDirectory("sparkbloom-redis"));
    server.launch();
    return server;
  }

  /** redis://[:password@]127.0.0.1:port */
  String uri() {
    return "redis://" + (password == null ? "" : ":" + password + "@") + "127.0.0.1:" + port;
  }

  /** A raw client, for what the helper's services do themselves (SETBIT, GETBIT, ...). */
  Jedis raw() {
    Jedis jedis = new Jedis("127.0.0.1", port);
    if (password != null) {
      jedis.auth(password);
    }
    return jedis;
  }

  /** Saves the data, stops the server and starts it again on the same port and directory. */
  void restart() throws IOException {
    stop(true);
    launch();
  }

  /**
   * Stops the server without saving and starts it again, empty, on the same port: what a
   * restart of a server without persistence does to its data.
   */
  void restartEmpty() throws IOException {
    stop(false);
    launch();
  }

  /** Stops the server (saving its data first if {@code save}). */
  void stop(boolean save) {
    if (process == null) {
      return;
    }
    try (Jedis jedis = raw()) {
      jedis.sendCommand(Protocol.Command.SHUTDOWN, save ? "SAVE" : "NOSAVE");
    } catch (JedisException expected) {
      // SHUTDOWN closes the connection instead of replying.
    }
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    process = null;
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>(List.of(
        executable(), "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
        "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", ""));
    if (password != null) {
      command.add("--requirepass");
      command.add(password);
    }
    process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("redis.log").toFile())
        .start();
    // Wait until it answers (a startup wait, not a timed assertion).
    for (int i = 0; ; i++) {
      try (Jedis jedis = raw()) {
        jedis.ping();
        return;
      } catch (JedisException notYet) {
        if (!process.isAlive() || i > 500) {
          throw new IOException("redis-server did not start: " + Files.readString(dir.resolve("redis.log")), notYet);
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
    }
  }

  private static String executable() throws IOException {
    for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
      File f = new File(dir, "redis-server");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    for (String candidate : new String[] {"/usr/bin/redis-server", "/usr/sbin/redis-server"}) {
      if (new File(candidate).canExecute()) {
        return candidate;
      }
    }
    throw new IOException("redis-server not found: install the Debian package redis-server (scripts/test.sh does)");
  }

  @Override
  public void close() {
    stop(false);
  }
}
