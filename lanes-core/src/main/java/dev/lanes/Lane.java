package dev.lanes;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * A named, bounded executor that measures every task: how long it waited in the queue, how long
 * it ran, and (sampled) how much CPU it used. A lane is an {@link ExecutorService}, so it goes
 * wherever an executor goes ({@code CompletableFuture.supplyAsync(..., lane)}); its futures are
 * {@link CompletableFuture}s. For Spring Boot, Reactor and Kotlin coroutines, the modules {@code
 * lanes-spring-boot-starter}, {@code lanes-reactor} and {@code lanes-kotlin} adapt it (each tested
 * against the real library).
 *
 * <pre>{@code
 * try (Lane db = Lane.blocking("db", 8).queueCapacity(500).build()) {
 *   CompletableFuture<User> user = db.submit("load-user", () -> repository.load(id));
 *   ...
 *   LaneStats s = db.stats();   // s.sinceStart().queueWait().p99(), s.counts().rejected(), ...
 * }
 * }</pre>
 *
 * <p>Lifecycle follows the {@code ExecutorService} contract: {@link #shutdown()} runs what was
 * accepted, {@link #shutdownNow()} returns the tasks that never started, {@link #close()} waits.
 * Every accepted task runs, is returned by {@code shutdownNow}, or has its future cancelled — and
 * is counted.
 */
public interface Lane extends ExecutorService, AutoCloseable {

  /** A CPU lane: platform threads, as many as available processors unless changed. */
  static LaneBuilder cpu(String name) {
    return new LaneBuilder(name, LaneKind.CPU, Runtime.getRuntime().availableProcessors());
  }

  /** A blocking lane of {@code threads} platform threads. */
  static LaneBuilder blocking(String name, int threads) {
    return new LaneBuilder(name, LaneKind.BLOCKING, threads);
  }

  /**
   * A virtual lane: one virtual thread per running task, at most {@code maxConcurrency} at once.
   * A task beyond the cap waits in the bounded queue and holds no thread; its thread is started
   * when a permit is free.
   */
  static LaneBuilder virtual(String name, int maxConcurrency) {
    return new LaneBuilder(name, LaneKind.VIRTUAL, maxConcurrency);
  }

  String name();

  LaneKind kind();

  LaneConfig config();

  @Override
  <T> CompletableFuture<T> submit(Callable<T> task);

  @Override
  CompletableFuture<?> submit(Runnable task);

  @Override
  <T> CompletableFuture<T> submit(Runnable task, T result);

  /** Submits a task with a label that appears in its {@link TaskRecord} (e.g. "cpu", "file-io"). */
  <T> CompletableFuture<T> submit(String label, Callable<T> task);

  /** Submits a labelled task. */
  CompletableFuture<Void> submit(String label, Runnable task);

  /** Executes a labelled task; what it throws goes to the lane's exception handler. */
  void execute(String label, Runnable task);

  /** A snapshot of counts, gauges and timings. */
  LaneStats stats();

  /** The current health state. */
  LaneHealth health();

  /**
   * Calls {@code listener} with a {@link TaskRecord} for every task that ends (completes, fails,
   * is cancelled or rejected), on the thread where it ended, after the task's future completed.
   * Keep it quick; what it throws goes to the exception handler and does not affect the task.
   * When nobody subscribes, no record is made.
   */
  Subscription onTask(Consumer<? super TaskRecord> listener);

  /** Calls {@code listener} on every health transition. */
  Subscription onHealth(Consumer<? super HealthEvent> listener);

  /** The threads of a platform lane, or the current {@code maxConcurrency} of a virtual lane. */
  int concurrencyLimit();

  /**
   * Changes a virtual lane's cap while it runs: running tasks finish, and the new cap holds for
   * tasks started from now on.
   *
   * @throws UnsupportedOperationException on a platform lane
   * @throws IllegalArgumentException outside 1 to {@link LaneBuilder#MAX_VIRTUAL_CONCURRENCY}
   */
  void setMaxConcurrency(int maxConcurrency);

  /**
   * Recommended size for this lane from its measured figures, or the reason there is none yet.
   */
  SizingAdvice sizingAdvice();

  /**
   * Stops taking tasks, interrupts the running ones and returns those that never started, as
   * objects you can act on: for a task given to {@code submit}, the {@code Future} it returned
   * (already cancelled); for a task given to {@code execute}, the {@code Runnable} you gave (not
   * decorated; a future that {@code CompletableFuture.supplyAsync(.., lane)} made for it is
   * cancelled where lanes can reach it). Each is counted as returned.
   */
  @Override
  java.util.List<Runnable> shutdownNow();

  /** Shuts down and waits for every accepted task to finish (as {@link ExecutorService#close()}). */
  @Override
  void close();
}
