package dev.lanes.redis.harness;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SharedCapWorker} running as a separate JVM (same java, same class path as this one),
 * driven through its standard input and output. Its standard error (Lettuce's log) goes to a file.
 * One thread per worker reads its output; {@link #close()} kills the worker if it still runs and
 * joins that thread.
 */
public final class WorkerProcess implements AutoCloseable {

  private final Process process;
  private final Thread reader;
  private final Writer stdin;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> all = new ArrayList<>();
  private final Path errors;

  private WorkerProcess(Process process, Path errors) {
    this.process = process;
    this.errors = errors;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader = new Thread(this::read, "worker-" + process.pid() + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts a worker with {@code args} (see {@link SharedCapWorker}); small heap, quick start. */
  public static WorkerProcess start(List<String> args) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
        SharedCapWorker.class.getName()));
    command.addAll(args);
    try {
      Path errors = Files.createTempFile("lanes-redis-worker-", ".log");
      Process p = new ProcessBuilder(command).redirectError(errors.toFile()).start();
      return new WorkerProcess(p, errors);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a worker JVM", e);
    }
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        synchronized (all) {
          all.add(line);
        }
        lines.add(line);
      }
    } catch (IOException e) {
      // The worker was killed: its output ends here.
    }
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the next output line starting with {@code prefix} (earlier lines are kept in {@link
   * #output()}), or fails naming what the worker printed and where its log is.
   */
  public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new IllegalStateException("worker " + pid() + " printed no line starting with \""
            + prefix + "\" within " + timeout.toMillis() + " ms (alive: " + isAlive()
            + "); its output: " + output() + "; its log: " + errors);
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Every line the worker printed so far. */
  public List<String> output() {
    synchronized (all) {
      return List.copyOf(all);
    }
  }

  /** Writes one line to the worker's standard input. */
  public void send(String line) {
    try {
      stdin.write(line + "\n");
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("worker " + pid() + " does not read its input", e);
    }
  }

  /** SIGKILL: the worker gets no chance to release anything. Waits until it is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Waits for the worker to exit by itself; answers its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("worker " + pid() + " did not exit within "
          + timeout.toMillis() + " ms; its log: " + errors);
    }
    return process.exitValue();
  }

  /** Kills the worker if it still runs, and joins its output reader. */
  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        kill();
      }
      reader.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    File log = errors.toFile();
    if (log.length() == 0) {
      log.delete();
    }
  }
}
