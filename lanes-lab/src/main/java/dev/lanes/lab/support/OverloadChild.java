package dev.lanes.lab.support;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.TaskRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The child JVM of E3, started with a small heap: one producer submits tasks (each holding a
 * {@value #PAYLOAD_BYTES}-byte payload) about five times faster than one worker drains them,
 * for a bounded time.
 *
 * <pre>
 * java -Xmx64m -cp ... dev.lanes.lab.support.OverloadChild unbounded|bounded DURATION_MS TASKS_FILE
 * </pre>
 *
 * <p>stdout protocol, one line each: {@code heap <ms since start> <used MB> <live MB>} every 100 ms (live: what the latest GC kept), then
 * {@code result oom submitted=N} or {@code result survived submitted=N rejected=R completed=C}.
 * In bounded mode the lane's task records go to TASKS_FILE as raw comma-separated fields. Threads:
 * the producer (main), the pool's or lane's one worker, and a daemon heap sampler; printing is
 * through {@code System.out}, which is synchronised.
 */
public final class OverloadChild {

  public static final int PAYLOAD_BYTES = 8_192;
  private static final int SUBMITS_PER_MS = 5;

  private OverloadChild() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    long durationMs = Long.parseLong(args[1]);
    Path tasksFile = Path.of(args[2]);
    long start = System.nanoTime();
    Thread sampler = Thread.ofPlatform().daemon(true).name("heap-sampler").start(() -> sample(start));
    if (mode.equals("unbounded")) {
      unbounded(start, durationMs);
    } else {
      bounded(start, durationMs, tasksFile);
    }
    sampler.interrupt();
    System.out.flush();
    System.exit(0);
  }

  private static void unbounded(long start, long durationMs) throws InterruptedException {
    // Executors.newFixedThreadPool: one thread, an unbounded LinkedBlockingQueue.
    ExecutorService pool = Executors.newFixedThreadPool(1);
    long submitted = 0;
    try {
      while (elapsedMs(start) < durationMs) {
        for (int i = 0; i < SUBMITS_PER_MS; i++) {
          byte[] payload = new byte[PAYLOAD_BYTES];
          pool.execute(() -> hold(payload));
          submitted++;
        }
        LockSupport.parkNanos(1_000_000);
      }
    } catch (OutOfMemoryError e) {
      pool.shutdownNow(); // drop the queue so there is memory to report with
      System.out.println("result oom submitted=" + submitted + " at_ms=" + elapsedMs(start));
      return;
    }
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
    System.out.println("result survived submitted=" + submitted + " rejected=0 completed=-1");
  }

  private static void bounded(long start, long durationMs, Path tasksFile) throws IOException {
    List<TaskRecord> records = new ArrayList<>();
    long submitted = 0;
    long rejected = 0;
    Lane lane = Lane.blocking("e3-bounded", 1).queueCapacity(500).cpuTimeEveryTask()
        .daemon(true).build();
    lane.onTask(r -> {
      synchronized (records) {
        records.add(r);
      }
    });
    try {
      while (elapsedMs(start) < durationMs) {
        for (int i = 0; i < SUBMITS_PER_MS; i++) {
          byte[] payload = new byte[PAYLOAD_BYTES];
          try {
            lane.execute("task", () -> hold(payload));
          } catch (LaneRejectedException e) {
            rejected++;
          }
          submitted++;
        }
        LockSupport.parkNanos(1_000_000);
      }
    } catch (OutOfMemoryError e) {
      lane.shutdownNow();
      System.out.println("result oom submitted=" + submitted + " at_ms=" + elapsedMs(start));
      return;
    }
    lane.close();
    long completed = lane.stats().completed();
    synchronized (records) {
      try (BufferedWriter w = Files.newBufferedWriter(tasksFile)) {
        for (TaskRecord r : records) {
          w.write(r.taskId() + "," + r.lane() + "," + r.label() + "," + r.thread() + ","
              + r.acceptedNanos() + "," + r.startedNanos() + "," + r.endedNanos() + ","
              + r.queueWaitNanos() + "," + r.runNanos() + "," + r.cpuNanos() + "," + r.outcome().name()
              + "\n");
        }
      }
    }
    System.out.println("result survived submitted=" + submitted + " rejected=" + rejected
        + " completed=" + completed);
  }

  /** The task: keeps its payload reachable and takes about a millisecond. */
  private static void hold(byte[] payload) {
    payload[0]++;
    LockSupport.parkNanos(1_000_000);
  }

  private static void sample(long start) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    while (!Thread.currentThread().isInterrupted()) {
      try {
        double mb = memory.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
        System.out.println("heap " + elapsedMs(start) + " "
            + String.format(java.util.Locale.ROOT, "%.1f %.1f", mb, liveAfterLastGcMb()));
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      } catch (OutOfMemoryError e) {
        // the producer reports it; keep sampling
      }
    }
  }

  /**
   * Heap occupied right after each heap pool's latest collection, summed: what survived, i.e. the
   * live data (garbage such as refused tasks' payloads is not in it). 0 before the first GC.
   */
  private static double liveAfterLastGcMb() {
    long bytes = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        bytes += pool.getCollectionUsage().getUsed();
      }
    }
    return bytes / (1024.0 * 1024.0);
  }

  private static long elapsedMs(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
