package dev.lanes.agent.apps;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Pools whose names are in question: one named thread without a number (as Hikari's
 * housekeeper), named workers, two pools whose names share a 41-character prefix, an anonymous
 * subclass with the JDK's default thread names, and the JDK's process reaper (a process started
 * each round). Runs one round and ends; with {@code serve}, prints "ready" after the first round,
 * then runs one more for each line read (printing "round") until its standard input closes; with
 * {@code pid}, only prints its pid.
 */
public final class NamesApp {
  public static final String LONG_PREFIX = "an-application-pool-with-a-name-this-long";

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("pid")) {
      // Makes the JDK's process-reaper pool (ProcessHandleImpl), which no task has used yet.
      System.out.println("pid=" + ProcessHandle.current().pid());
      return;
    }
    ScheduledExecutorService housekeeper = Executors.newSingleThreadScheduledExecutor(
        r -> new Thread(r, "NamesApp:housekeeper"));
    ExecutorService workers = Executors.newFixedThreadPool(2, FixedPoolApp.named("names-worker"));
    ExecutorService alpha = Executors.newFixedThreadPool(1, FixedPoolApp.named(LONG_PREFIX + "-alpha"));
    ExecutorService beta = Executors.newFixedThreadPool(1, FixedPoolApp.named(LONG_PREFIX + "-beta"));
    ExecutorService anonymous = makeAnonymousPool();
    List<ExecutorService> all = List.of(housekeeper, workers, alpha, beta, anonymous);
    round(all);
    if (args.length > 0 && args[0].equals("serve")) {
      System.out.println("ready");
      System.out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        round(all);
        System.out.println("round");
        System.out.flush();
      }
    }
    for (ExecutorService pool : all) {
      pool.shutdown();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  static ExecutorService makeAnonymousPool() {
    return new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
      @Override protected void afterExecute(Runnable r, Throwable t) {
        super.afterExecute(r, t);
      }
    };
  }

  /** A task on every pool, waited for, and a process started and waited for (the reaper's task). */
  private static void round(List<ExecutorService> pools) throws Exception {
    for (ExecutorService pool : pools) {
      pool.submit(() -> { }).get(30, TimeUnit.SECONDS);
    }
    Process p = new ProcessBuilder("true").start();
    p.waitFor(30, TimeUnit.SECONDS);
    p.destroyForcibly();
  }
}
