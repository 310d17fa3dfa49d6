package dev.lanes;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deadline to start for every task the current thread gives to any lane while it is open: a
 * request's time left, handed to the work it submits (as gRPC hands a call's deadline on).
 *
 * <pre>{@code
 * try (TaskDeadline d = TaskDeadline.startWithin(Duration.ofMillis(200))) {
 *   CompletableFuture<User> user = db.submit(() -> load(id));      // must start within 200 ms
 *   CompletableFuture<Cart> cart = carts.submit(() -> cart(id));   // of the same instant
 * }
 * }</pre>
 *
 * <p>Every submission on this thread while the scope is open — {@code submit}, {@code execute},
 * {@code invokeAll}, {@code CompletableFuture.supplyAsync(.., lane)}, Spring's {@code @Async}
 * called from here — gets the scope's deadline, as {@link Lane#submit(String, Duration,
 * java.util.concurrent.Callable)} would give it: a task still queued when it passes never starts
 * and ends {@link TaskOutcome#EXPIRED}. The deadline is one instant, fixed when the scope opens;
 * a scope opened inside another keeps the earlier of the two, and a task given its own {@code
 * startWithin} keeps the earlier too. The scope belongs to the thread that opened it: close it
 * there, in the order opened ({@code try}-with-resources does both). Tasks do not inherit it: code
 * running in a lane task opens its own.
 *
 * <p>Cost: while no scope is open anywhere in the JVM, a submission pays one volatile read of a
 * counter; while one is open, a thread-local read.
 */
public final class TaskDeadline implements AutoCloseable {
  private static final ThreadLocal<TaskDeadline> CURRENT = new ThreadLocal<>();
  /** Scopes open in the JVM: submissions look at their thread's scope only while this is not 0. */
  private static final AtomicInteger OPEN = new AtomicInteger();

  /** The {@link System#nanoTime()} reading by which tasks must start. */
  private final long dueNanos;
  private final TaskDeadline outer;
  private final Thread owner;
  private boolean closed;

  private TaskDeadline(long dueNanos, TaskDeadline outer) {
    this.dueNanos = dueNanos;
    this.outer = outer;
    this.owner = Thread.currentThread();
  }

  /**
   * Opens a scope on this thread: tasks it submits to a lane until {@link #close()} must start
   * within {@code startWithin} of now (or of an enclosing scope's deadline, if earlier).
   *
   * @param startWithin how long from now; zero or negative: every task submitted in the scope is
   *     refused as {@code EXPIRED}; more than 100 years is read as 100 years
   * @return the open scope, to close
   * @throws NullPointerException if {@code startWithin} is null
   */
  public static TaskDeadline startWithin(Duration startWithin) {
    Objects.requireNonNull(startWithin, "startWithin");
    long due = System.nanoTime() + clamp(startWithin);
    TaskDeadline outer = CURRENT.get();
    if (outer != null && outer.dueNanos - due < 0) {
      due = outer.dueNanos;
    }
    TaskDeadline d = new TaskDeadline(due, outer);
    OPEN.incrementAndGet();
    CURRENT.set(d);
    return d;
  }

  /** Nanoseconds of {@code d}: 0 for a negative one, at most 100 years. */
  static long clamp(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    return d.compareTo(MAX_START_WITHIN) > 0 ? MAX_START_WITHIN.toNanos() : d.toNanos();
  }

  /** The longest wait to start a deadline says; a longer one is read as this. */
  static final Duration MAX_START_WITHIN = Duration.ofDays(36_525); // 100 years

  /**
   * {@return the time left until this scope's deadline (zero or negative once it passed)}
   */
  public Duration remaining() {
    return Duration.ofNanos(dueNanos - System.nanoTime());
  }

  /**
   * Closes the scope: the thread's enclosing scope, if any, applies again. A second close does
   * nothing.
   *
   * @throws IllegalStateException if called from another thread than the one that opened it, or
   *     while a scope opened inside it is still open
   */
  @Override
  public void close() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("a TaskDeadline is closed by the thread that opened it ("
          + owner + "), not " + Thread.currentThread());
    }
    if (closed) {
      return;
    }
    if (CURRENT.get() != this) {
      throw new IllegalStateException(
          "a TaskDeadline is closed after the scopes opened inside it (try-with-resources does it)");
    }
    closed = true;
    if (outer == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(outer);
    }
    OPEN.decrementAndGet();
  }

  /**
   * Nanoseconds left until the current thread's deadline, or {@link Long#MAX_VALUE} if it has no
   * scope open (one volatile read while no thread has one).
   */
  static long nanosLeft() {
    if (OPEN.get() == 0) {
      return Long.MAX_VALUE;
    }
    TaskDeadline d = CURRENT.get();
    return d == null ? Long.MAX_VALUE : Math.max(0, d.dueNanos - System.nanoTime());
  }
}
