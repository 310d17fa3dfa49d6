package dev.lanes;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * A named, bounded executor that measures every task: how long it waited in the queue, how long
 * it ran, and (sampled) how much CPU it used. A lane is an {@link ExecutorService}, so it goes
 * wherever an executor goes ({@code CompletableFuture.supplyAsync(..., lane)}); its futures are
 * {@link CompletableFuture}s that only the lane completes, and stages made from them run on the
 * lane unless told otherwise. For Spring Boot, Reactor and Kotlin coroutines, the modules {@code
 * lanes-spring-boot-starter}, {@code lanes-reactor} and {@code lanes-kotlin} adapt it (each tested
 * against the real library).
 *
 * <pre>{@code
 * try (Lane db = Lane.blocking("db", 8).queueCapacity(500).build()) {
 *   CompletableFuture<User> user = db.submit("load-user", () -> repository.load(id));
 *   ...
 *   LaneStats s = db.stats();   // s.sinceStart().queueWait().p99(), s.rejected(), ...
 * }
 * }</pre>
 *
 * <p>Every lane has a {@linkplain #concurrency() concurrency} — how many of its tasks run at once
 * — and a queue capacity — how many more may wait; it never holds more than the two added up.
 * Both kinds of thread count the same way: a platform lane's concurrency is its threads, a virtual
 * lane's is the virtual threads it lets run at once (a waiting task holds no thread).
 *
 * <p>Lifecycle follows the {@code ExecutorService} contract: {@link #shutdown()} runs what was
 * accepted, {@link #shutdownNow()} returns the tasks that never started, {@link #close()} waits.
 * Every accepted task runs, is returned by {@code shutdownNow}, or has its future completed
 * (cancelled or failed) — a task given to {@code execute} has no future, so if the lane drops it
 * unrun after accepting it (discard-oldest, a gate that refuses it, no thread to run it) the
 * lane's {@linkplain LaneBuilder#exceptionHandler exception handler} hears of it — and is counted
 * under one {@link TaskOutcome}. An {@code execute} that races {@code shutdownNow} either throws
 * {@link LaneRejectedException}, or its task runs or is returned by {@code shutdownNow}.
 */
public sealed interface Lane extends ExecutorService permits LaneExecutor {

  /**
   * A CPU lane: platform threads, as many as available processors unless changed.
   *
   * @param name the lane's name; trimmed, then 1 to {@value LaneBuilder#MAX_NAME_LENGTH} printable
   *     characters
   * @return a builder for the lane, with the default settings
   * @throws IllegalArgumentException if the name is null, blank, too long or not printable
   */
  static LaneBuilder cpu(String name) {
    return LaneBuilder.start(name, LaneKind.CPU, LaneBuilder.CORES);
  }

  /**
   * A blocking lane of {@code concurrency} platform threads.
   *
   * @param name the lane's name; trimmed, then 1 to {@value LaneBuilder#MAX_NAME_LENGTH} printable
   *     characters
   * @param concurrency how many threads, so how many tasks run at once: 1 to {@value
   *     LaneBuilder#MAX_PLATFORM_CONCURRENCY}
   * @return a builder for the lane, with the other settings at their defaults
   * @throws IllegalArgumentException if the name is null, blank, too long or not printable, or
   *     {@code concurrency} is out of range; the message names the lane, the bound and the value
   */
  static LaneBuilder blocking(String name, int concurrency) {
    return LaneBuilder.start(name, LaneKind.BLOCKING, concurrency);
  }

  /**
   * A virtual lane: one virtual thread per running task, at most {@code concurrency} at once. A
   * task beyond the cap waits in the bounded queue and holds no thread; a thread is started when a
   * permit is free.
   *
   * @param name the lane's name; trimmed, then 1 to {@value LaneBuilder#MAX_NAME_LENGTH} printable
   *     characters
   * @param concurrency how many tasks run at once, each on its own virtual thread: 1 to {@value
   *     LaneBuilder#MAX_VIRTUAL_CONCURRENCY}
   * @return a builder for the lane, with the other settings at their defaults
   * @throws IllegalArgumentException if the name is null, blank, too long or not printable, or
   *     {@code concurrency} is out of range; the message names the lane, the bound and the value
   */
  static LaneBuilder virtual(String name, int concurrency) {
    return LaneBuilder.start(name, LaneKind.VIRTUAL, concurrency);
  }

  /** {@return the lane's name, as given to its builder less surrounding white space} */
  String name();

  /** {@return the kind of lane, which decides its threads: platform (CPU, BLOCKING) or virtual} */
  LaneKind kind();

  /**
   * {@return how many of this lane's tasks may run at once now} It changes only by {@link
   * #setConcurrency}.
   */
  int concurrency();

  /**
   * Changes how many tasks may run at once, on a running lane of any kind. Raising it starts
   * threads for queued tasks at once; lowering it lets running tasks finish, and the lane runs no
   * more than the new figure from then on (a platform lane's extra threads end as they become
   * free). The lane's total room ({@code concurrency + queueCapacity}) follows.
   *
   * @param concurrency the new figure
   * @throws IllegalArgumentException outside 1 to {@link LaneBuilder#MAX_PLATFORM_CONCURRENCY}
   *     (platform lanes) or {@link LaneBuilder#MAX_VIRTUAL_CONCURRENCY} (virtual lanes); the
   *     message names the lane and the bound
   */
  void setConcurrency(int concurrency);

  /** {@return how many tasks may wait beyond the running ones; changed by {@link #change()}} */
  int queueCapacity();

  /** {@return the settings that can change while the lane runs, as they are now} */
  LaneSettings settings();

  /**
   * Starts a change of the settings that can change while the lane runs — concurrency, queue
   * capacity, overflow policy, shedding, saturation thresholds — applied by {@link
   * LaneChange#apply()}: checked like the builder (same messages), all or nothing, without losing
   * or re-ordering a task the lane holds, logged once and told to {@link #onSettings} listeners.
   * {@link #setConcurrency} is the quiet path for control loops (no log line, no event).
   *
   * @return a change with nothing changed yet
   */
  LaneChange change();

  /**
   * Calls {@code listener} after each change made through {@link #change()}, on the thread that
   * applied it. Remove it with {@link #removeListener}.
   *
   * @param listener called with each {@link SettingsChange}
   * @throws NullPointerException if {@code listener} is null
   */
  void onSettings(Consumer<? super SettingsChange> listener);

  /**
   * {@return each of the lane's worker threads now — platform or virtual — with its name, state
   * and up to 32 frames, as text, at most 64 threads} For evidence in an alert or a report; it
   * reads every worker's stack, so it is not for a hot path.
   */
  String workerStacks();

  /**
   * {@return tasks waiting now, read at once from the queue without a snapshot} Cheap (no lock,
   * no drain of the figures), for gauges and control loops that need only this; it is read apart
   * from everything else, so beside other figures use {@link #stats()}, whose books balance.
   */
  int queued();

  /**
   * {@return tasks running now, read at once from the lane's threads without a snapshot} Cheap,
   * like {@link #queued()}.
   */
  int running();

  /** {@return what the lane does with a task that arrives when it is full} */
  OverflowPolicy overflow();

  /** {@inheritDoc} The future is completed by the lane only. */
  @Override
  <T> CompletableFuture<T> submit(Callable<T> task);

  /** {@inheritDoc} The future is completed by the lane only. */
  @Override
  CompletableFuture<?> submit(Runnable task);

  /** {@inheritDoc} The future is completed by the lane only. */
  @Override
  <T> CompletableFuture<T> submit(Runnable task, T result);

  /**
   * Submits a task with a label that appears in its {@link TaskRecord} (e.g. "cpu", "file-io").
   *
   * @param <T> the type of the task's result
   * @param label the task's label; {@code ""} for none
   * @param task the task
   * @return a future the lane completes with the task's result or what it threw, or ends otherwise
   *     if the task does not run to an end (see {@link TaskOutcome}); under {@link
   *     OverflowPolicy#callerRuns()} the task may have run on the calling thread before this
   *     returns
   * @throws LaneRejectedException if the lane refused the task (its reason says why); nothing of
   *     the task ran
   * @throws NullPointerException if {@code label} or {@code task} is null
   */
  <T> CompletableFuture<T> submit(String label, Callable<T> task);

  /**
   * Submits a labelled task that returns nothing.
   *
   * @param label the task's label, as in {@link #submit(String, Callable)}; {@code ""} for none
   * @param task the task
   * @return a future the lane completes with {@code null} when the task returns, or with what it
   *     threw, or ends otherwise if the task does not run to an end (see {@link TaskOutcome})
   * @throws LaneRejectedException if the lane refused the task (its reason says why)
   * @throws NullPointerException if {@code label} or {@code task} is null
   */
  CompletableFuture<Void> submit(String label, Runnable task);

  /**
   * Submits a labelled task that must start within {@code startWithin} of now, or not at all: if
   * it is still queued when that time is up, it never starts — it ends {@link
   * TaskOutcome#EXPIRED} and its future fails with a {@link LaneRejectedException} that names the
   * lane, how long the task waited and how long it had — at once (a timer ends it and gives its
   * place in the queue back), or when a worker reaches it if the timer is late. A task that has
   * started runs to its end: the deadline is for its wait. For a caller whose own deadline makes
   * a late result useless (a request's time left, say).
   *
   * @param <T> the type of the task's result
   * @param label the task's label, as in {@link #submit(String, Callable)}; {@code ""} for none
   * @param startWithin how long from now the task may wait to start; more than 100 years is read
   *     as 100 years
   * @param task the task
   * @return a future the lane completes as {@link #submit(String, Callable)}'s, or fails as above
   * @throws LaneRejectedException if the lane refused the task (its reason says why), with reason
   *     {@link TaskOutcome#EXPIRED} if {@code startWithin} is zero or negative (the deadline passed
   *     already); nothing of the task ran
   * @throws NullPointerException if {@code label}, {@code startWithin} or {@code task} is null
   */
  <T> CompletableFuture<T> submit(String label, Duration startWithin, Callable<T> task);

  /**
   * Submits a labelled task that returns nothing and must start within {@code startWithin} of
   * now, or not at all, as {@link #submit(String, Duration, Callable)}.
   *
   * @param label the task's label; {@code ""} for none
   * @param startWithin how long from now the task may wait to start
   * @param task the task
   * @return a future the lane completes with {@code null} when the task returns, or ends otherwise
   * @throws LaneRejectedException if the lane refused the task (reason {@link TaskOutcome#EXPIRED}
   *     if {@code startWithin} is zero or negative)
   * @throws NullPointerException if {@code label}, {@code startWithin} or {@code task} is null
   */
  CompletableFuture<Void> submit(String label, Duration startWithin, Runnable task);

  /**
   * Executes a labelled task; what it throws goes to the lane's exception handler.
   *
   * @param label the task's label, as in {@link #submit(String, Callable)}; {@code ""} for none
   * @param task the task
   * @throws LaneRejectedException if the lane refused the task (its reason says why)
   * @throws NullPointerException if {@code label} or {@code task} is null
   */
  void execute(String label, Runnable task);

  /** {@return a snapshot of counts, gauges and timings (see {@link LaneStats} for how exact)} */
  LaneStats stats();

  /** {@return the current health state} */
  LaneHealth health();

  /**
   * Calls {@code listener} with a {@link TaskRecord} for every task that ends (completes, fails,
   * is cancelled, returned or rejected), on the thread where it ended, after the task's future
   * completed. Keep it quick; what it throws is logged and does not affect the task. When nobody
   * listens, no record is made. Remove it with {@link #removeListener}.
   *
   * @param listener called once per ended task
   * @throws NullPointerException if {@code listener} is null
   */
  void onTask(Consumer<? super TaskRecord> listener);

  /**
   * Calls {@code listener} on every health transition. Remove it with {@link #removeListener}.
   *
   * @param listener called with each {@link HealthEvent}
   * @throws NullPointerException if {@code listener} is null
   */
  void onHealth(Consumer<? super HealthEvent> listener);

  /**
   * Stops calling a listener given to {@link #onTask}, {@link #onHealth} or {@link #onSettings};
   * false if it was not registered.
   *
   * @param listener a listener given to {@code onTask}, {@code onHealth} or {@code onSettings}
   * @return true if it was registered and is removed
   */
  boolean removeListener(Object listener);

  /**
   * Stops taking tasks, interrupts the running ones and returns those that never started, as
   * objects you can act on: for a task given to {@code submit}, the {@code Future} it returned
   * (already cancelled); for a task given to {@code execute}, the {@code Runnable} you gave (not
   * decorated; a future that {@code CompletableFuture.supplyAsync(.., lane)} made for it is
   * cancelled where lanes can reach it). Each is counted as {@link TaskOutcome#RETURNED}.
   */
  @Override
  List<Runnable> shutdownNow();

  /** Shuts down and waits for every accepted task to finish (as {@link ExecutorService#close()}). */
  @Override
  void close();
}
