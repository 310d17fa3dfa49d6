package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Small helpers for lane tests: busy work, latches that fail instead of hanging, thread joins. */
final class Work {
  /** How long a test waits for something that should happen at once before it fails. */
  static final long PATIENCE_SECONDS = 30;

  private Work() {}

  /** Spins on the CPU for about {@code millis} of wall time. */
  static long spinMillis(long millis) {
    return dev.lanes.testkit.Spin.millis(millis);
  }

  /** Spins until this thread has used {@code millis} of CPU time (however long that takes). */
  static long spinCpuMillis(long millis) {
    return dev.lanes.testkit.Spin.cpuMillis(millis);
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released within " + PATIENCE_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Awaits the latch, turning an interrupt into a RuntimeException (for use inside tasks). */
  static void block(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RuntimeException("interrupted while blocked", e);
    }
  }

  /**
   * Occupies one of the lane's threads with a task that blocks until the returned latch is
   * released; returns once that task runs.
   */
  static CountDownLatch occupy(Lane lane) {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    lane.execute(() -> {
      started.countDown();
      block(release);
    });
    await(started);
    return release;
  }

  static void join(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(PATIENCE_SECONDS));
      if (t.isAlive()) {
        throw new AssertionError("thread " + t.getName() + " did not finish");
      }
    }
  }

  static List<Thread> start(int n, String name, Runnable body) {
    List<Thread> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(body, name + "-" + i);
      t.start();
      out.add(t);
    }
    return out;
  }

  /** Waits until {@code t} is blocked (WAITING or TIMED_WAITING). */
  static void awaitBlocked(Thread t) {
    org.awaitility.Awaitility.await()
        .atMost(PATIENCE_SECONDS, TimeUnit.SECONDS)
        .pollInterval(java.time.Duration.ofMillis(2))
        .until(() -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  /** The books of a quiet lane: every submission accounted for. */
  static void assertBooksBalance(LaneStats s) {
    long accounted = s.endedTotal() + s.queued() + s.running();
    org.assertj.core.api.Assertions.assertThat(accounted)
        .as("ended (every outcome) + queued + running vs submitted in %s", s)
        .isEqualTo(s.submitted());
  }

  /** What a JVM of its own printed (stdout and stderr) and how it exited. */
  record JvmRun(int exit, String output) {
    List<String> lines() {
      return output.lines().toList();
    }
  }

  /** Runs {@code main} in a JVM of its own with this test's class path; fails if it hangs. */
  static JvmRun runJvm(List<String> jvmOptions, Class<?> main, String... args)
      throws java.io.IOException, InterruptedException {
    String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.add(javaBin);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] bytes;
    try (var in = p.getInputStream()) {
      bytes = in.readAllBytes();
    }
    if (!p.waitFor(PATIENCE_SECONDS * 4, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(main.getSimpleName() + " did not finish");
    }
    return new JvmRun(p.exitValue(), new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * Installs a handler on lanes' logger that throws an {@code AssertionError} ("logger failure
   * (simulated)") for every message containing {@code trigger}; remove it when done.
   */
  static java.util.logging.Handler throwOnLog(String trigger) {
    java.util.logging.Handler h = new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord r) {
        if (r.getMessage() != null && r.getMessage().contains(trigger)) {
          throw new AssertionError("logger failure (simulated)");
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    java.util.logging.Logger.getLogger("dev.lanes").addHandler(h);
    return h;
  }

  /** Installs a handler on lanes' logger that adds every record to {@code into}; remove it when done. */
  static java.util.logging.Handler captureLog(java.util.List<java.util.logging.LogRecord> into) {
    java.util.logging.Handler h = new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord r) {
        into.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    java.util.logging.Logger.getLogger("dev.lanes").addHandler(h);
    return h;
  }

  /** The three things a lane can do on a starvation deadlock, for tests that try each. */
  enum OnDeadlock {
    REPORT,
    FAIL,
    COMPENSATE;

    LaneBuilder apply(LaneBuilder b) {
      return switch (this) {
        case REPORT -> b;
        case FAIL -> b.failOnDeadlock();
        case COMPENSATE -> b.compensateOnDeadlock(64);
      };
    }
  }
}
