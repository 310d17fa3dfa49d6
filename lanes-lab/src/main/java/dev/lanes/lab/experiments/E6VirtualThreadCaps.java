package dev.lanes.lab.experiments;

import dev.lanes.Lane;
import dev.lanes.lab.Experiment;
import dev.lanes.lab.ExperimentResult;
import dev.lanes.lab.LabContext;
import dev.lanes.lab.report.Charts;
import dev.lanes.lab.support.Heap;
import dev.lanes.lab.support.TaskLog;
import dev.lanes.lab.support.ThreadCounter;
import dev.lanes.lab.support.Work;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * E6: virtual threads three ways, on a CPU-only task and on the same task plus a 50 ms wait:
 * uncapped (a virtual thread per task), spawn-then-throttle (a virtual thread per task that then
 * waits on a semaphore of {@code cap} permits) and lanes' virtual lane (acquire a permit, then
 * spawn). Measures time, peak tasks running at once, peak virtual threads alive at once (counted
 * by a wrapping thread factory, the same for all three) and heap growth at the moment every task
 * has been submitted.
 */
public final class E6VirtualThreadCaps implements Experiment {

  private static final int CAP = 30;
  private static final int DELAY_MS = 50;
  private static final int CPU_STEPS = 25_000;
  private static final List<String> VARIANTS = List.of("uncapped", "spawn_then_throttle", "lanes");

  /** Keeps the computation's result alive so the JIT cannot drop it. */
  private static volatile long sink;

  private record Run(double ms, int peakRunning, int peakThreads, double heapMb) {}

  @Override
  public String id() {
    return "E6";
  }

  @Override
  public String question() {
    return "Virtual threads: uncapped, spawn-then-semaphore, or lanes' acquire-before-spawn?";
  }

  @Override
  public ExperimentResult run(LabContext ctx) throws Exception {
    ExperimentResult result = new ExperimentResult(this);
    int tasks = ctx.scale(1_500, 10_000);
    result.setup(String.format(Locale.ROOT,
        "%,d tasks, cap %d. Workloads: CPU only (a short computation) and CPU + %d ms wait (a"
            + " sleep, standing in for a call to a rate-limited service). Uncapped: a new virtual"
            + " thread per task. Spawn-then-throttle: a virtual thread per task that acquires one of"
            + " %d semaphore permits before working. lanes: Lane.virtual(cap %d), which starts a"
            + " virtual thread only when a permit is free. Threads alive: counted by a wrapping"
            + " thread factory from run start to run end. Heap: live heap right after the last"
            + " submission (measured after a full GC at that moment) minus live heap before the run.",
        tasks, CAP, DELAY_MS, CAP, CAP));
    TaskLog log = new TaskLog();
    ctx.status("E6 warm-up");
    run("uncapped", tasks, 0, new TaskLog(), ctx.seed());
    Map<String, Run> runs = new LinkedHashMap<>();
    for (String workload : List.of("cpu", "delay")) {
      int delay = workload.equals("cpu") ? 0 : DELAY_MS;
      for (String variant : VARIANTS) {
        ctx.status("E6 " + workload + " " + variant);
        runs.put(workload + "_" + variant, run(variant, tasks, delay, log, ctx.seed()));
      }
    }
    result.figure("tasks", (long) tasks);
    result.figure("cap", (long) CAP);
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, Run> e : runs.entrySet()) {
      Run r = e.getValue();
      result.figure(e.getKey() + "_ms", r.ms());
      result.figure(e.getKey() + "_peak_running", (long) r.peakRunning());
      result.figure(e.getKey() + "_peak_threads", (long) r.peakThreads());
      result.figure(e.getKey() + "_heap_mb", r.heapMb());
      String[] parts = e.getKey().split("_", 2);
      rows.add(List.of(parts[0].equals("cpu") ? "CPU only" : "CPU + " + DELAY_MS + " ms", parts[1].replace('_', ' '),
          E1PoolOrThreadPerTask.fmt(r.ms()), dev.lanes.lab.report.Format.count(r.peakRunning()),
          dev.lanes.lab.report.Format.count(r.peakThreads()), String.format(Locale.ROOT, "%.1f", r.heapMb())));
    }
    Run throttled = runs.get("delay_spawn_then_throttle");
    Run lanes = runs.get("delay_lanes");
    Run uncapped = runs.get("delay_uncapped");
    result.figure("spawn_then_throttle_peak_threads", (long) throttled.peakThreads());
    result.figure("lanes_peak_threads", (long) lanes.peakThreads());
    result.figure("spawn_then_throttle_heap_mb", throttled.heapMb());
    result.figure("lanes_heap_mb", lanes.heapMb());
    result.table(List.of("workload", "variant", "time ms", "peak tasks running", "peak threads alive",
        "heap growth MB"), rows);
    List<String> cats = List.of("uncapped", "spawn then throttle", "lanes");
    result.chart("E6-threads", "Peak virtual threads alive at once (CPU + " + DELAY_MS + " ms workload).",
        Charts.barsLog("E6: peak threads alive", "threads", cats, Charts.series(
            "threads alive", List.of((double) uncapped.peakThreads(), (double) throttled.peakThreads(),
                (double) lanes.peakThreads()),
            "tasks running", List.of((double) uncapped.peakRunning(), (double) throttled.peakRunning(),
                (double) lanes.peakRunning()))));
    result.chart("E6-time", "Wall time per variant and workload.",
        Charts.barsLog("E6: wall time", "ms", cats, Charts.series(
            "CPU only", VARIANTS.stream().map(v -> runs.get("cpu_" + v).ms()).toList(),
            "CPU + " + DELAY_MS + " ms", VARIANTS.stream().map(v -> runs.get("delay_" + v).ms()).toList())));
    result.chart("E6-heap", "Live heap growth at the moment every task was submitted.",
        Charts.barsLog("E6: heap growth at peak backlog", "MB", cats, Charts.series(
            "CPU only", VARIANTS.stream().map(v -> runs.get("cpu_" + v).heapMb()).toList(),
            "CPU + " + DELAY_MS + " ms", VARIANTS.stream().map(v -> runs.get("delay_" + v).heapMb()).toList())));

    boolean capsHold = throttled.peakRunning() <= CAP && lanes.peakRunning() <= CAP;
    boolean lanesFewThreads = lanes.peakThreads() <= CAP;
    boolean throttleMany = throttled.peakThreads() > 2 * CAP;
    boolean holds = capsHold && lanesFewThreads && throttleMany;
    String v = String.format(Locale.ROOT,
        "With a %d ms wait per task, uncapped ran up to %,d tasks at once against the resource (%s ms"
            + " in all). Both capped variants kept at most %d running (%d and %d), but"
            + " spawn-then-throttle had %,d virtual threads alive at once, parked on the semaphore,"
            + " against %d for lanes, which starts a thread only with a permit; heap growth at peak"
            + " backlog was %.1f MB vs %.1f MB%s. Time: %s ms vs %s ms. ",
        DELAY_MS, uncapped.peakRunning(), E1PoolOrThreadPerTask.fmt(uncapped.ms()), CAP,
        throttled.peakRunning(), lanes.peakRunning(), throttled.peakThreads(), lanes.peakThreads(),
        throttled.heapMb(), lanes.heapMb(),
        lanes.heapMb() < throttled.heapMb() ? "" : " (no heap saving measured on this run)",
        E1PoolOrThreadPerTask.fmt(throttled.ms()), E1PoolOrThreadPerTask.fmt(lanes.ms()));
    v += holds ? "Acquire-before-spawn gives the same cap without a thread per waiting task."
        : "The expected shape did not fully show: caps held " + capsHold + ", lanes threads ≤ cap "
            + lanesFewThreads + ", spawn-then-throttle threads > 2 × cap " + throttleMany + ".";
    result.verdict(holds, v);
    result.tasks(log.records());
    return result;
  }

  private static Run run(String variant, int tasks, int delayMs, TaskLog log, long seed)
      throws InterruptedException {
    ThreadCounter threads = ThreadCounter.virtual("e6-" + variant);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peakRunning = new AtomicInteger();
    Semaphore permits = new Semaphore(CAP);
    Runnable body = () -> {
      int now = running.incrementAndGet();
      peakRunning.accumulateAndGet(now, Math::max);
      try {
        sink = Work.xorshift(seed, CPU_STEPS);
        if (delayMs > 0) {
          Work.pause(delayMs);
        }
      } finally {
        running.decrementAndGet();
      }
    };
    Runnable throttledBody = () -> {
      try {
        permits.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      try {
        body.run();
      } finally {
        permits.release();
      }
    };
    ExecutorService executor = switch (variant) {
      case "lanes" -> log.follow(Lane.virtual("e6-" + (delayMs > 0 ? "delay" : "cpu"), CAP)
          .queueCapacity(tasks).threadFactory(threads).build());
      default -> Executors.newThreadPerTaskExecutor(threads);
    };
    Heap.settle();
    double heap0 = Heap.usedMb();
    long t0 = System.nanoTime();
    double heapAtPeak;
    try {
      Runnable task = variant.equals("spawn_then_throttle") ? throttledBody : body;
      for (int i = 0; i < tasks; i++) {
        executor.execute(task);
      }
      // Live heap at the peak of the backlog: a full GC now leaves what the backlog retains
      // (parked threads' stacks, or queued tasks), not garbage. It pauses all variants alike.
      Heap.settle();
      heapAtPeak = Heap.usedMb() - heap0;
    } finally {
      executor.shutdown();
      if (!executor.awaitTermination(5, TimeUnit.MINUTES)) {
        executor.shutdownNow();
        throw new IllegalStateException("E6 " + variant + " did not finish within 5 minutes");
      }
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    return new Run(ms, peakRunning.get(), threads.peak(), Math.max(0, heapAtPeak));
  }
}
