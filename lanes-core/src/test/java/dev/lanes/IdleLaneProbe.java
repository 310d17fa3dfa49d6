package dev.lanes;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs in its own JVM (see {@link IdleLaneTest}): builds {@code virtual} virtual lanes of
 * concurrency {@value #VIRTUAL_CONCURRENCY} and {@code blocking} blocking lanes of one thread, all
 * with the default queue capacity, runs nothing on them, and prints as {@code key=value} lines the
 * heap each holds (used heap after full collections, before and after building, divided by the
 * lanes) and the CPU the JVM and the health thread spent over {@code seconds} of doing nothing.
 *
 * <p>With a fourth argument {@code tpe} it builds the baseline instead: {@code virtual} idle
 * {@link java.util.concurrent.ThreadPoolExecutor}s of {@value #VIRTUAL_CONCURRENCY} threads
 * (none started) and {@code blocking} of one thread (started), each with a {@code
 * LinkedBlockingQueue} bounded at the lanes' default queue capacity.
 *
 * <p>A fifth argument gives the blocking lanes' concurrency (1 by default; the fourth is then
 * {@code lanes}): a platform lane of two workers or more has a ring of several shards (issue #27).
 *
 * <pre>java -Xmx1g -cp ... dev.lanes.IdleLaneProbe 900 100 10 [tpe | lanes [concurrency]]</pre>
 */
public final class IdleLaneProbe {
  static final int VIRTUAL_CONCURRENCY = 8;
  /** Time for the lanes to settle (the health thread's first ticks, JIT) before CPU is read. */
  static final long SETTLE_MILLIS = Long.getLong("lanes.probe.settleMillis", 1_000);

  public static void main(String[] args) throws Exception {
    int virtual = Integer.parseInt(args[0]);
    int blocking = Integer.parseInt(args[1]);
    long seconds = Long.parseLong(args[2]);
    if (args.length > 3 && args[3].equals("tpe")) {
      baseline(virtual, blocking, seconds);
      return;
    }
    int blockingConcurrency = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    List<Lane> lanes = new ArrayList<>();
    // Load the classes and start the health thread before the first reading.
    Lane warm = Lane.virtual("warm-up", VIRTUAL_CONCURRENCY).build();
    long base = usedHeapAfterGc();
    for (int i = 0; i < virtual; i++) {
      lanes.add(Lane.virtual("idle-v" + i, VIRTUAL_CONCURRENCY).build());
    }
    long afterVirtual = usedHeapAfterGc();
    for (int i = 0; i < blocking; i++) {
      lanes.add(Lane.blocking("idle-b" + i, blockingConcurrency).build());
    }
    long afterBlocking = usedHeapAfterGc();
    System.out.println("lanes=" + lanes.size());
    if (blocking > 0) {
      System.out.println("blocking_lane_shards="
          + ((LaneExecutor) lanes.get(lanes.size() - 1)).ring.shardCount());
    }
    if (virtual > 0) {
      System.out.println("heap_bytes_per_virtual_lane=" + (afterVirtual - base) / virtual);
    }
    if (blocking > 0) {
      System.out.println("heap_bytes_per_blocking_lane=" + (afterBlocking - afterVirtual) / blocking);
    }
    System.out.println("heap_bytes_per_lane=" + (afterBlocking - base) / lanes.size());
    TimeUnit.MILLISECONDS.sleep(SETTLE_MILLIS); // the probe's own pacing: nothing to wait for
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    var os = (com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean();
    long healthId = healthThreadId(threads);
    long jvm0 = os.getProcessCpuTime();
    long health0 = healthId < 0 ? 0 : Math.max(0, threads.getThreadCpuTime(healthId));
    long wall0 = System.nanoTime();
    java.util.Map<Long, Long> cpu0 = threadCpu(threads);
    TimeUnit.SECONDS.sleep(seconds); // the idle period being measured
    java.util.Map<Long, Long> cpu1 = threadCpu(threads);
    long wall = System.nanoTime() - wall0;
    long jvm = os.getProcessCpuTime() - jvm0;
    long health = healthId < 0 ? 0 : Math.max(0, threads.getThreadCpuTime(healthId)) - health0;
    System.out.println("idle_seconds=" + String.format(java.util.Locale.ROOT, "%.2f", wall / 1e9));
    System.out.println("jvm_cpu_ms=" + jvm / 1_000_000);
    System.out.println("health_thread_cpu_ms=" + health / 1_000_000);
    System.out.println("health_thread_found=" + (healthId >= 0));
    // Where the JVM's CPU went, by Java thread (the rest is the JVM's own: GC, JIT, safepoints).
    long javaThreads = 0;
    StringBuilder top = new StringBuilder();
    for (var e : cpu1.entrySet()) {
      long d = e.getValue() - cpu0.getOrDefault(e.getKey(), 0L);
      javaThreads += d;
      if (d >= 1_000_000) {
        ThreadInfo t = threads.getThreadInfo(e.getKey());
        top.append(t == null ? "?" : t.getThreadName().replace(' ', '_')).append(':')
            .append(d / 1_000_000).append("ms;");
      }
    }
    System.out.println("java_threads_cpu_ms=" + javaThreads / 1_000_000);
    System.out.println("threads_over_1ms=" + top);
    // Still right when work returns: one lane runs a task.
    var f = lanes.get(0).submit(() -> 42);
    System.out.println("after_idle_result=" + f.get(10, TimeUnit.SECONDS));
    for (Lane l : lanes) {
      l.close();
    }
    warm.close();
  }

  private static void baseline(int unstarted, int started, long seconds) throws Exception {
    List<java.util.concurrent.ThreadPoolExecutor> pools = new ArrayList<>();
    long base = usedHeapAfterGc();
    for (int i = 0; i < unstarted + started; i++) {
      int threads = i < unstarted ? VIRTUAL_CONCURRENCY : 1;
      var pool = new java.util.concurrent.ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
          new java.util.concurrent.LinkedBlockingQueue<>(LaneBuilder.DEFAULT_QUEUE_CAPACITY));
      if (i >= unstarted) {
        pool.prestartCoreThread();
      }
      pools.add(pool);
    }
    long after = usedHeapAfterGc();
    System.out.println("pools=" + pools.size());
    System.out.println("heap_bytes_per_pool=" + (after - base) / pools.size());
    TimeUnit.MILLISECONDS.sleep(SETTLE_MILLIS); // the probe's own pacing: nothing to wait for
    var os = (com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean();
    long jvm0 = os.getProcessCpuTime();
    TimeUnit.SECONDS.sleep(seconds); // the idle period being measured
    System.out.println("jvm_cpu_ms=" + (os.getProcessCpuTime() - jvm0) / 1_000_000);
    for (var p : pools) {
      p.shutdown();
    }
  }

  private static java.util.Map<Long, Long> threadCpu(ThreadMXBean threads) {
    java.util.Map<Long, Long> out = new java.util.HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      long t = threads.getThreadCpuTime(id);
      if (t >= 0) {
        out.put(id, t);
      }
    }
    return out;
  }

  private static long healthThreadId(ThreadMXBean threads) {
    for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().equals("lanes-health")) {
        return t.getThreadId();
      }
    }
    return -1;
  }

  static long usedHeapAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      TimeUnit.MILLISECONDS.sleep(20); // let reference processing finish between collections
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
