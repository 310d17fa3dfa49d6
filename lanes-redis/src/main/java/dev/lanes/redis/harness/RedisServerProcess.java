package dev.lanes.redis.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A private Redis server for tests and the lab: Debian's {@code redis-server} (or Valkey's
 * {@code valkey-server}) started as a child process on 127.0.0.1, on a free port, in a temporary
 * folder, without persistence ({@code --save "" --appendonly no}), so a restart loses every key
 * as a crashed Redis without persistence would. No Docker, no system service.
 *
 * <p>The binary is {@code $LANES_REDIS_SERVER} if set, else {@code redis-server} or {@code
 * valkey-server} on the PATH; {@code ./lanes test} installs Debian's {@code redis-server} when it
 * is missing and it runs as root. Version 7.0 or newer is required (the scripts read Redis's clock
 * with {@code TIME} before writing, which needs effects replication, the only mode since 7.0).
 *
 * <p>Readiness is the server's own "Ready to accept connections" line on its standard output, read
 * by one thread per start (joined on stop), which also copies the output to {@code redis.log} in
 * the temporary folder.
 */
public final class RedisServerProcess implements AutoCloseable {

  /** The longest a start may take before it is reported as failed. */
  public static final long START_TIMEOUT_SECONDS = 20;

  private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

  private final String binary;
  private final String version;
  private final Path dir;
  private final int port;
  private Process process;
  private Thread reader;

  private RedisServerProcess(String binary, String version, Path dir, int port) {
    this.binary = binary;
    this.version = version;
    this.dir = dir;
    this.port = port;
  }

  /** Starts a server on a free port; fails in one sentence when there is no usable binary. */
  public static RedisServerProcess start() {
    String binary = findBinary();
    String version = versionOf(binary);
    Path dir;
    try {
      dir = Files.createTempDirectory("lanes-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      RedisServerProcess server = new RedisServerProcess(binary, version, dir, freePort());
      try {
        server.launch();
        return server;
      } catch (IllegalStateException e) {
        last = e; // the port was taken between probing it and Redis binding it: try another
      }
    }
    throw last;
  }

  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:<port>}. */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /** The server's version, e.g. {@code 7.0.15}, and its binary. */
  public String version() {
    return version + " (" + binary + ")";
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The server's process id, while it runs. */
  public synchronized long pid() {
    return process.pid();
  }

  /** Stops the server (SIGTERM; it saves nothing) and waits for it to exit. */
  public synchronized void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    signalQuietly("CONT"); // a paused server could not act on SIGTERM
    awaitExit();
  }

  /** Kills the server (SIGKILL) and waits for it to exit. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    awaitExit();
  }

  /**
   * Freezes the server (SIGSTOP): connections stay open and every call waits, as with a Redis that
   * hangs or is far too slow. {@link #resume()} lets it go on.
   */
  public synchronized void pause() {
    signal("STOP");
  }

  /** Lets a paused server go on (SIGCONT). */
  public synchronized void resume() {
    signal("CONT");
  }

  private void signalQuietly(String name) {
    try {
      signal(name);
    } catch (RuntimeException e) {
      // it exited meanwhile
    }
  }

  private void signal(String name) {
    if (process == null) {
      throw new IllegalStateException("redis-server on port " + port + " is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid()))
          .redirectErrorStream(true).start();
      String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!kill.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Starts the server again on the same port, empty (no persistence). */
  public synchronized void restart() {
    if (isRunning()) {
      throw new IllegalStateException("redis-server on port " + port + " is still running");
    }
    launch();
  }

  @Override
  public void close() {
    stop();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary folder left behind is harmless.
    }
  }

  private synchronized void launch() {
    List<String> command = new ArrayList<>(List.of(binary,
        "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", dir.toString(), "--daemonize", "no", "--logfile", "", "--protected-mode", "yes"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary, e);
    }
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread t = new Thread(() -> copyOutput(p, ready), "redis-server-" + port + "-output");
    t.setDaemon(true);
    t.start();
    try {
      ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IllegalStateException("interrupted while starting redis-server", e);
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      join(t);
      throw new IllegalStateException("redis-server did not start on port " + port + " within "
          + START_TIMEOUT_SECONDS + " s; its output is in " + dir.resolve("redis.log"), e);
    }
    process = p;
    reader = t;
  }

  private void copyOutput(Process p, CompletableFuture<Void> ready) {
    try (BufferedReader in = new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer log = Files.newBufferedWriter(dir.resolve("redis.log"), StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
      String line;
      while ((line = in.readLine()) != null) {
        log.write(line);
        log.write('\n');
        log.flush();
        if (line.contains("Ready to accept connections")) {
          ready.complete(null);
        }
      }
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
    ready.completeExceptionally(new IllegalStateException("redis-server exited"));
  }

  private void awaitExit() {
    try {
      if (!process.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    join(reader);
    process = null;
    reader = null;
  }

  private static void join(Thread t) {
    try {
      t.join(TimeUnit.SECONDS.toMillis(START_TIMEOUT_SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String findBinary() {
    return findBinary(System.getenv());
  }

  static String findBinary(java.util.Map<String, String> env) {
    String configured = env.get("LANES_REDIS_SERVER");
    if (configured != null && !configured.isBlank()) {
      if (!Files.isExecutable(Path.of(configured))) {
        throw new IllegalStateException(
            "LANES_REDIS_SERVER is " + configured + ", which is not an executable file");
      }
      return configured;
    }
    String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
    for (String name : List.of("redis-server", "valkey-server")) {
      for (String folder : path.split(java.io.File.pathSeparator)) {
        Path candidate = Path.of(folder, name);
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    throw new IllegalStateException("lanes-redis tests need a Redis server: no redis-server or "
        + "valkey-server on the PATH (./lanes test installs Debian's redis-server when run as "
        + "root; else run `apt-get install redis-server`, or set LANES_REDIS_SERVER)");
  }

  static String versionOf(String binary) {
    try {
      Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      Matcher m = VERSION.matcher(out);
      if (!m.find()) {
        throw new IllegalStateException(binary + " --version printed no version: " + out.strip());
      }
      if (Integer.parseInt(m.group(1)) < 7) {
        throw new IllegalStateException("lanes-redis needs Redis 7.0 or newer, " + binary + " is "
            + m.group(1) + "." + m.group(2) + "." + m.group(3));
      }
      return m.group(1) + "." + m.group(2) + "." + m.group(3);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + binary + " --version", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
