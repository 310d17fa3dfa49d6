package dev.lanes;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain harness for quick looks at the hot path while changing it (not a test, not the
 * benchmark of record — that is lanes-bench): P producers each submit batches of tiny {@code
 * execute} tasks to an executor with 2 workers; prints, per executor, the 10th-percentile and
 * median wall time per task over the batches, and the process CPU time per task (all threads, from
 * the OS). Run: {@code java -cp … dev.lanes.HotPathProbe [producers] [batches]}.
 */
public final class HotPathProbe {
  private static final int BATCH = 10_000;

  private HotPathProbe() {}

  public static void main(String[] args) throws Exception {
    int producers = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    int batches = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    String only = args.length > 2 ? args[2] : "";
    for (int round = 0; round < 2; round++) { // round 0 warms up
      for (String name : List.of("tpe-abq", "tpe-lbq", "lanes", "lanes-cpu-off", "lanes-virtual")) {
        if (!only.isEmpty() && !name.equals(only) && !name.startsWith("tpe")) {
          continue;
        }
        ExecutorService ex = make(name, producers * BATCH);
        try {
          double[] r = run(ex, producers, round == 0 ? batches / 3 : batches);
          if (round == 1) {
            System.out.printf(Locale.ROOT, "%-14s p10 %6.1f ns/task  p50 %6.1f  cpu %6.1f ns/task%n",
                name, r[0], r[1], r[2]);
          }
        } finally {
          ex.shutdown();
          ex.awaitTermination(1, TimeUnit.MINUTES);
        }
      }
    }
  }

  private static ExecutorService make(String name, int queue) {
    return switch (name) {
      case "tpe-abq" -> new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue));
      case "tpe-lbq" -> new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(queue));
      case "lanes" -> Lane.blocking("probe", 2).queueCapacity(queue).build();
      case "lanes-cpu-off" -> Lane.blocking("probe", 2).queueCapacity(queue).cpuTimeOff().build();
      case "lanes-virtual" -> Lane.virtual("probe", 64).queueCapacity(queue).build();
      default -> throw new IllegalArgumentException(name);
    };
  }

  private static double[] run(ExecutorService ex, int producers, int batches) throws Exception {
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    double[] perTask = new double[batches];
    long cpu0 = os.getProcessCpuTime();
    for (int b = 0; b < batches; b++) {
      AtomicInteger left = new AtomicInteger(producers * BATCH);
      CountDownLatch done = new CountDownLatch(1);
      Runnable task = () -> {
        if (left.decrementAndGet() == 0) {
          done.countDown();
        }
      };
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        Thread t = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < BATCH; i++) {
            ex.execute(task);
          }
        });
        t.start();
        threads.add(t);
      }
      long t0 = System.nanoTime();
      go.countDown();
      done.await();
      long t1 = System.nanoTime();
      for (Thread t : threads) {
        t.join();
      }
      perTask[b] = (t1 - t0) / (double) (producers * BATCH);
    }
    long cpu1 = os.getProcessCpuTime();
    Arrays.sort(perTask);
    return new double[] {
      perTask[batches / 10], perTask[batches / 2], (cpu1 - cpu0) / (double) (batches * producers * BATCH)
    };
  }
}
