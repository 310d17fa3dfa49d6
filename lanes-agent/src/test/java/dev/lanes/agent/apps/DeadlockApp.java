package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * Builds one pool shape and reports whether the agent's log said "starvation deadlock", and how
 * long after the shape formed. Deadlock shapes (the writings' nested submission, 1 and 9 threads,
 * through {@code submit().get()} and {@code runAsync(.., pool).join()}): {@code submit-1},
 * {@code submit-9}, {@code async-1}, {@code async-9}. Shapes that must not alarm: {@code
 * timed-get}, {@code other-pool}, {@code busy-neighbour}, {@code or-timeout}, {@code sleepers},
 * {@code slow-io} (a blocking socket read while tasks queue), {@code timed-success}.
 * Pools use daemon threads, so a deadlocked one does not keep the JVM alive.
 */
public final class DeadlockApp {
  private static final AtomicLong WARNED_AT = new AtomicLong();

  public static void main(String[] args) throws Exception {
    // The agent logs through System.Logger, which is java.util.logging here: listen to it, and
    // print what it says on stderr before telling main (the console handler could lose the race
    // with main's exit).
    java.util.logging.Logger log = java.util.logging.Logger.getLogger("dev.lanes.agent");
    log.setUseParentHandlers(false);
    CountDownLatch warned = new CountDownLatch(1);
    log.addHandler(new Handler() {
      @Override public void publish(LogRecord r) {
        System.err.println(r.getLevel() + ": " + r.getMessage());
        if (r.getMessage().contains("starvation deadlock")) {
          WARNED_AT.compareAndSet(0, System.nanoTime());
          warned.countDown();
        }
      }

      @Override public void flush() {}

      @Override public void close() {}
    });
    String shape = args[0];
    if (shape.equals("lookalikes")) {
      lookalikesAtOnce(warned);
      return;
    }
    long formed = switch (shape) {
      case "submit-1" -> nested(1, false);
      case "submit-9" -> nested(9, false);
      case "async-1" -> nested(1, true);
      case "async-9" -> nested(9, true);
      case "timed-get" -> timedGet();
      case "other-pool" -> otherPool();
      case "busy-neighbour" -> busyNeighbour();
      case "or-timeout" -> orTimeout();
      case "sleepers" -> sleepers();
      case "slow-io" -> slowIo();
      case "timed-success" -> timedSuccess();
      default -> throw new IllegalArgumentException(shape);
    };
    boolean deadlockShape = shape.startsWith("submit") || shape.startsWith("async");
    // A deadlock shape waits for the warning (bounded); the others have ended their shape by now
    // and give the agent a further second to (wrongly) speak.
    boolean seen = warned.await(deadlockShape ? 20 : 1, TimeUnit.SECONDS);
    System.out.println("deadlock reported: " + seen);
    if (seen) {
      System.out.printf("reported_after_ms=%.1f%n", (WARNED_AT.get() - formed) / 1e6);
    }
  }

  /** Every look-alike at once, each in its own pools; then a further second for the agent. */
  static void lookalikesAtOnce(CountDownLatch warned) throws Exception {
    List<java.util.concurrent.Callable<Long>> shapes = List.of(DeadlockApp::timedGet,
        DeadlockApp::otherPool, DeadlockApp::busyNeighbour, DeadlockApp::orTimeout,
        DeadlockApp::sleepers, DeadlockApp::slowIo, DeadlockApp::timedSuccess);
    ExecutorService drivers = Executors.newFixedThreadPool(shapes.size(), daemons("driver"));
    for (Future<Long> f : drivers.invokeAll(shapes)) {
      f.get();
    }
    drivers.shutdown();
    System.out.println("deadlock reported: " + warned.await(1, TimeUnit.SECONDS));
  }

  static ThreadFactory daemons(String prefix) {
    AtomicLong n = new AtomicLong();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Every thread submits a nested task to its own pool and waits for it: nothing runs again. */
  static long nested(int threads, boolean async) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemons("nested"));
    CountDownLatch allWaiting = new CountDownLatch(threads);
    for (int i = 0; i < threads; i++) {
      pool.execute(() -> {
        allWaiting.countDown();
        try {
          allWaiting.await();
          if (async) {
            CompletableFuture.runAsync(() -> { }, pool).join();
          } else {
            pool.submit(() -> 42).get();
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    }
    allWaiting.await();
    return System.nanoTime(); // the shape forms as each thread reaches its get/join, within µs
  }

  /** One thread waits with a timeout on a task queued behind it: it wakes by itself. */
  static long timedGet() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(1, daemons("timed"));
    Future<?> outer = pool.submit(() -> {
      try {
        pool.submit(() -> 1).get(1500, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException expected) {
        return "timed out";
      }
      return "ran";
    });
    long t = System.nanoTime();
    System.out.println("timed-get: " + outer.get());
    return t;
  }

  /** A's thread waits on a task queued in B, whose thread is busy for a while: not A's deadlock. */
  static long otherPool() throws Exception {
    ExecutorService a = Executors.newFixedThreadPool(1, daemons("pool-a"));
    ExecutorService b = Executors.newFixedThreadPool(1, daemons("pool-b"));
    b.execute(() -> sleep(1500));
    Future<?> outer = a.submit(() -> b.submit(() -> 1).get());
    long t = System.nanoTime();
    System.out.println("other-pool: " + outer.get());
    return t;
  }

  /** One thread waits on a task queued behind a neighbour that runs (sleeps): busy, not stuck. */
  static long busyNeighbour() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2, daemons("neighbours"));
    CountDownLatch sleeping = new CountDownLatch(1);
    pool.execute(() -> {
      sleeping.countDown();
      sleep(1500);
    });
    sleeping.await();
    List<Future<?>> outers = new ArrayList<>();
    outers.add(pool.submit(() -> pool.submit(() -> 1).get()));
    long t = System.nanoTime();
    for (Future<?> f : outers) {
      System.out.println("busy-neighbour: " + f.get());
    }
    return t;
  }

  /** The join has a timeout attached (orTimeout): it fails by itself. */
  static long orTimeout() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(1, daemons("or-timeout"));
    Future<?> outer = pool.submit(() -> {
      try {
        return CompletableFuture.runAsync(() -> { }, pool).orTimeout(1500, TimeUnit.MILLISECONDS).join();
      } catch (java.util.concurrent.CompletionException e) {
        return e.getCause().getClass().getSimpleName();
      }
    });
    long t = System.nanoTime();
    System.out.println("or-timeout: " + outer.get());
    return t;
  }

  /** Every thread sleeps while tasks queue: saturated, never deadlocked. */
  static long sleepers() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2, daemons("sleepers"));
    List<Future<?>> all = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.add(pool.submit(() -> sleep(500)));
    }
    long t = System.nanoTime();
    for (Future<?> f : all) {
      f.get();
    }
    System.out.println("sleepers: done");
    return t;
  }

  /** Both threads read a socket whose peer answers after 1.5 s, while tasks queue behind them. */
  static long slowIo() throws Exception {
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress())) {
      Thread answerer = new Thread(() -> {
        List<java.net.Socket> clients = new ArrayList<>();
        try {
          for (int i = 0; i < 2; i++) {
            clients.add(server.accept());
          }
          sleep(1500);
          for (java.net.Socket c : clients) {
            c.getOutputStream().write(1);
            c.close();
          }
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, "answerer");
      answerer.start();
      ExecutorService pool = Executors.newFixedThreadPool(2, daemons("readers"));
      List<Future<?>> all = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        all.add(pool.submit(() -> {
          try (java.net.Socket s = new java.net.Socket(server.getInetAddress(), server.getLocalPort())) {
            return s.getInputStream().read();
          }
        }));
      }
      for (int i = 0; i < 4; i++) {
        all.add(pool.submit(() -> 0));
      }
      long t = System.nanoTime();
      for (Future<?> f : all) {
        f.get();
      }
      answerer.join();
      System.out.println("slow-io: done");
      return t;
    }
  }

  /** A timed wait on a task that another thread of the pool runs: it succeeds. */
  static long timedSuccess() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2, daemons("timed-ok"));
    Future<?> outer = pool.submit(() -> pool.submit(() -> {
      sleep(1200);
      return "child";
    }).get(5, TimeUnit.SECONDS));
    long t = System.nanoTime();
    System.out.println("timed-success: " + outer.get());
    return t;
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
