package dev.lanes.bench;

import com.codahale.metrics.InstrumentedExecutorService;
import com.codahale.metrics.MetricRegistry;
import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.ThreadPoolBulkhead;
import io.github.resilience4j.bulkhead.ThreadPoolBulkheadConfig;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import jdk.jfr.Recording;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Builds every executor the benchmarks compare, by name. The names are the values of the JMH
 * {@code executor} parameter and are fixed by the benchmark issue.
 *
 * <p>Common settings: platform executors have {@value #WORKERS} threads; capped virtual
 * executors run at most {@code cap} tasks at once. Every bounded executor has a queue of {@code
 * queueCapacity} (default {@value #QUEUE_CAPACITY}) and, when it is full, <b>blocks the
 * producer</b> until there is room, each in its own way, never by running the task on the caller:
 *
 * <ul>
 *   <li>ThreadPoolExecutors (bare, and the ones under Micrometer, Dropwizard and the Resilience4j
 *       thread-pool bulkhead): a rejection handler that does a blocking {@code put} on the pool's
 *       queue ({@link BlockWhenFull});
 *   <li>lanes: {@link OverflowPolicy#blockCaller} with a 10-minute timeout;
 *   <li>Spring's {@code SimpleAsyncTaskExecutor}: its concurrency limit blocks the caller (it has
 *       no queue);
 *   <li>{@code vthreads} and {@code r4j-semaphore-vthreads} start a virtual thread per task and
 *       never block the producer (waiting tasks are parked threads, unbounded);
 *   <li>{@code fjp} ({@code ForkJoinPool}) queues without bound and never blocks the producer.
 * </ul>
 *
 * {@link BenchExecutor#close()} waits for accepted tasks, except on Spring's executor, whose
 * {@code close()} waits only for threads that already started (the benchmarks never rely on it:
 * every batch waits for its own tasks).
 *
 * <p>The {@code tpe-lbq} queue is a {@link LinkedBlockingQueue} bounded at the same capacity, so a
 * batch larger than the queue never builds an unbounded backlog; below the bound it behaves as the
 * unbounded one (same class, same code path).
 */
public final class ExecutorFactory {

  /** Compensation threads of {@code lanes-deadlock-compensate} (64, as in the earlier runs). */
  static final int COMPENSATION_THREADS = 64;

  public static final String TPE_LBQ = "tpe-lbq";
  public static final String TPE_ABQ = "tpe-abq";
  public static final String LANES = "lanes";
  public static final String LANES_CPU_EVERY_TASK = "lanes-cpu-every-task";
  public static final String MICROMETER = "micrometer";
  public static final String DROPWIZARD = "dropwizard";
  public static final String R4J_THREADPOOL = "r4j-threadpool";
  public static final String LANES_VIRTUAL = "lanes-virtual";
  public static final String VTHREADS = "vthreads";
  public static final String R4J_SEMAPHORE_VTHREADS = "r4j-semaphore-vthreads";
  public static final String SPRING_VTHREADS_LIMIT = "spring-vthreads-limit";

  /**
   * lanes with CPU timing off (the default reads one worker's CPU time at most once per
   * millisecond): what the sampling costs.
   */
  public static final String LANES_CPU_OFF = "lanes-cpu-off";

  /**
   * lanes while a JFR recording has lanes' task event ({@code dev.lanes.Task}) enabled, at its
   * default 20 ms threshold: tiny tasks are timed for the event but never committed.
   */
  public static final String LANES_JFR = "lanes-jfr";

  /** lanes with a {@code onTask} listener subscribed (a {@code TaskRecord} per task). */
  public static final String LANES_TASK_LISTENER = "lanes-task-listener";

  /** lanes with a thread reading {@code stats()} every {@value #STATS_READ_MILLIS} ms. */
  public static final String LANES_STATS_READER = "lanes-stats-reader";

  /** lanes built with {@code compensateOnDeadlock(64)} instead of the default (deadlocks reported only). */
  public static final String LANES_DEADLOCK_COMPENSATE = "lanes-deadlock-compensate";

  /**
   * A {@code ForkJoinPool} of {@value #WORKERS} workers: its per-thread submission queues and
   * work stealing are what many producers want (issue #27's shared-latch workload). Its queues are
   * unbounded: it never blocks a producer.
   */
  public static final String FJP = "fjp";

  /** The executors of the issue, in the order tables print them. */
  public static final List<String> ALL =
      List.of(
          TPE_LBQ,
          TPE_ABQ,
          LANES,
          LANES_CPU_EVERY_TASK,
          MICROMETER,
          DROPWIZARD,
          R4J_THREADPOOL,
          LANES_VIRTUAL,
          VTHREADS,
          R4J_SEMAPHORE_VTHREADS,
          SPRING_VTHREADS_LIMIT);

  /** The executors whose {@code cap} parameter means something. */
  public static final List<String> CAPPED_VIRTUAL =
      List.of(LANES_VIRTUAL, R4J_SEMAPHORE_VTHREADS, SPRING_VTHREADS_LIMIT);

  /** lanes with its observation features switched on one at a time (health benchmark). */
  public static final List<String> LANES_FEATURE_VARIANTS =
      List.of(
          LANES_CPU_OFF,
          LANES_JFR,
          LANES_TASK_LISTENER,
          LANES_STATS_READER,
          LANES_DEADLOCK_COMPENSATE);

  public static final int WORKERS = 2;
  public static final int QUEUE_CAPACITY = 16_384;
  public static final long STATS_READ_MILLIS = 10;

  private static final Duration BLOCK_TIMEOUT = Duration.ofMinutes(10);

  private ExecutorFactory() {}

  /** Every name {@link #create} accepts. */
  public static List<String> names() {
    return java.util.stream.Stream.of(ALL.stream(), LANES_FEATURE_VARIANTS.stream(),
            java.util.stream.Stream.of(FJP))
        .flatMap(x -> x)
        .toList();
  }

  public static BenchExecutor create(String name, int cap) {
    return create(name, cap, QUEUE_CAPACITY);
  }

  /**
   * Builds executor {@code name}; {@code cap} is the concurrency of the capped virtual executors
   * (ignored by the others), {@code queueCapacity} the bound of every queue.
   */
  public static BenchExecutor create(String name, int cap, int queueCapacity) {
    if (cap < 1) {
      throw new IllegalArgumentException("cap must be ≥ 1, was " + cap);
    }
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("queueCapacity must be ≥ 1, was " + queueCapacity);
    }
    return switch (name) {
      case TPE_LBQ -> pool(name, tpe(new LinkedBlockingQueue<>(queueCapacity)));
      case TPE_ABQ -> pool(name, tpe(new ArrayBlockingQueue<>(queueCapacity)));
      case LANES -> lane(name, platformLane(queueCapacity).build(), null);
      case LANES_CPU_EVERY_TASK ->
          lane(name, platformLane(queueCapacity).cpuTimeEveryTask().build(), null);
      case LANES_CPU_OFF ->
          lane(name, platformLane(queueCapacity).cpuTimeOff().build(), null);
      case LANES_JFR -> {
        Recording recording = new Recording();
        recording.enable("dev.lanes.Task");
        recording.start();
        yield lane(
            name,
            platformLane(queueCapacity).build(),
            () -> {
              recording.stop();
              recording.close();
            });
      }
      case LANES_TASK_LISTENER -> {
        Lane lane = platformLane(queueCapacity).build();
        LongAdder sink = new LongAdder();
        java.util.function.Consumer<dev.lanes.TaskRecord> listener = r -> sink.add(r.runNanos());
        lane.onTask(listener);
        yield lane(name, lane, () -> lane.removeListener(listener));
      }
      case LANES_STATS_READER -> {
        Lane lane = platformLane(queueCapacity).build();
        yield lane(name, lane, StatsReader.start(lane));
      }
      case LANES_DEADLOCK_COMPENSATE ->
          lane(
              name,
              platformLane(queueCapacity)
                  .compensateOnDeadlock(COMPENSATION_THREADS)
                  .build(),
              null);
      case LANES_VIRTUAL ->
          lane(
              name,
              Lane.virtual("bench", cap)
                  .queueCapacity(queueCapacity)
                  .overflow(OverflowPolicy.blockCaller(BLOCK_TIMEOUT))
                  .build(),
              null);
      case MICROMETER -> {
        ThreadPoolExecutor pool = tpe(new LinkedBlockingQueue<>(queueCapacity));
        ExecutorService timed =
            ExecutorServiceMetrics.monitor(new SimpleMeterRegistry(), pool, "bench");
        yield wrapped(name, timed::execute, timed, false);
      }
      case DROPWIZARD -> {
        ThreadPoolExecutor pool = tpe(new LinkedBlockingQueue<>(queueCapacity));
        ExecutorService instrumented =
            new InstrumentedExecutorService(pool, new MetricRegistry(), "bench");
        yield wrapped(name, instrumented::execute, instrumented, false);
      }
      case R4J_THREADPOOL -> {
        ThreadPoolBulkhead bulkhead =
            ThreadPoolBulkhead.of(
                "bench",
                ThreadPoolBulkheadConfig.custom()
                    .coreThreadPoolSize(WORKERS)
                    .maxThreadPoolSize(WORKERS)
                    .queueCapacity(queueCapacity)
                    .rejectedExecutionHandler(new BlockWhenFull())
                    .build());
        yield new Adapter(name, bulkhead::executeRunnable, false, () -> closeBulkhead(bulkhead));
      }
      case FJP -> {
        java.util.concurrent.ForkJoinPool fjp = new java.util.concurrent.ForkJoinPool(WORKERS);
        yield wrapped(name, fjp::execute, fjp, false);
      }
      case VTHREADS -> {
        ExecutorService v = Executors.newVirtualThreadPerTaskExecutor();
        yield wrapped(name, v::execute, v, true);
      }
      case R4J_SEMAPHORE_VTHREADS -> {
        Bulkhead bulkhead =
            Bulkhead.of(
                "bench",
                BulkheadConfig.custom()
                    .maxConcurrentCalls(cap)
                    .maxWaitDuration(BLOCK_TIMEOUT)
                    .build());
        ExecutorService v = Executors.newVirtualThreadPerTaskExecutor();
        yield wrapped(name, task -> v.execute(() -> bulkhead.executeRunnable(task)), v, true);
      }
      case SPRING_VTHREADS_LIMIT -> {
        SimpleAsyncTaskExecutor spring = new SimpleAsyncTaskExecutor("bench-");
        spring.setVirtualThreads(true);
        spring.setConcurrencyLimit(cap);
        spring.setTaskTerminationTimeout(TimeUnit.MINUTES.toMillis(1)); // close() waits, as others
        yield new Adapter(name, spring::execute, false, spring::close);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown executor \"" + name + "\"; known: " + String.join(", ", names()));
    };
  }

  private static dev.lanes.LaneBuilder platformLane(int queueCapacity) {
    return Lane.blocking("bench", WORKERS)
        .queueCapacity(queueCapacity)
        .overflow(OverflowPolicy.blockCaller(BLOCK_TIMEOUT))
        .daemon(true);
  }

  private static ThreadPoolExecutor tpe(BlockingQueue<Runnable> queue) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            WORKERS,
            WORKERS,
            0,
            TimeUnit.MILLISECONDS,
            queue,
            Thread.ofPlatform().name("bench-", 1).daemon(true).factory(),
            new BlockWhenFull());
    pool.prestartAllCoreThreads(); // like a lane, whose workers start when it is built
    return pool;
  }

  private static BenchExecutor pool(String name, ThreadPoolExecutor pool) {
    return wrapped(name, pool::execute, pool, false);
  }

  private static BenchExecutor lane(String name, Lane lane, Runnable alsoOnClose) {
    return new Adapter(
        name,
        lane::execute,
        false,
        () -> {
          if (alsoOnClose != null) {
            alsoOnClose.run();
          }
          lane.close();
        });
  }

  private static BenchExecutor wrapped(
      String name, Consumer<Runnable> execute, ExecutorService owner, boolean threadPerTask) {
    return new Adapter(name, execute, threadPerTask, () -> shutdownAndWait(owner));
  }

  private static void shutdownAndWait(ExecutorService e) {
    e.shutdown();
    try {
      if (!e.awaitTermination(1, TimeUnit.MINUTES)) {
        e.shutdownNow();
        throw new IllegalStateException("executor did not terminate within a minute: " + e);
      }
    } catch (InterruptedException ie) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static void closeBulkhead(ThreadPoolBulkhead bulkhead) {
    try {
      bulkhead.close();
    } catch (Exception e) {
      throw new IllegalStateException("could not close the thread-pool bulkhead", e);
    }
  }

  /** Blocks the producer on the pool's queue instead of rejecting: backpressure for a TPE. */
  static final class BlockWhenFull implements RejectedExecutionHandler {
    @Override
    public void rejectedExecution(Runnable task, ThreadPoolExecutor pool) {
      if (pool.isShutdown()) {
        throw new RejectedExecutionException("executor is shut down");
      }
      try {
        pool.getQueue().put(task);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RejectedExecutionException("interrupted while waiting for room in the queue", e);
      }
    }
  }

  private record Adapter(
      String name, Consumer<Runnable> submit, boolean threadPerTask, Runnable closer)
      implements BenchExecutor {
    @Override
    public void execute(Runnable task) {
      submit.accept(task);
    }

    @Override
    public void close() {
      closer.run();
    }
  }
}
