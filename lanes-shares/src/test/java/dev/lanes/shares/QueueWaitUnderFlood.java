package dev.lanes.shares;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Issue #26's p99 figure: checkout's queue wait (submit → its task's code starts, which includes
 * the wait at the gate) with checkout alone ("unloaded") and with reports flooding the same db
 * ("loaded"), for a checkout load below its guaranteed share. A harness, not a test: it prints
 * figures and asserts nothing.
 *
 * <p>Set-up: {@code PriorityShares "db"} of 10, checkout 0.7 (7 guaranteed), reports 0.3 (3);
 * each partition a virtual lane of 10 (checkout's queue 10,000, reports' 50). Checkout: Poisson
 * arrivals (one generator thread, open loop) of tasks that sleep {@code serviceMillis}, at a rate
 * giving a mean of {@code load} × 7 tasks running. Reports' flood: 2 threads each submitting a
 * task that sleeps 5 ms every 200 µs (10,000 a second offered for a capacity of 600; most are
 * refused by reports' own full queue). Each phase builds fresh shares and lanes, warms up, then
 * records; phases alternate (see {@link #PHASES}) {@code rounds} times (so the machine's changing load falls on all
 * phases alike); at the end of each load, the rounds pooled and the ratio loaded/unloaded of
 * p99: pooled, the median of the rounds' ratios, and the median over the quiet rounds (those where
 * checkout alone on a plain lane, no gate, had a p99 under 1 ms: on a machine shared with other
 * work, the others are the machine's stalls, not the gate's).
 *
 * <pre>
 * ./mvnw -q -pl lanes-shares -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp lanes-shares/target/test-classes:lanes-shares/target/classes:$(cat lanes-shares/target/cp.txt) \
 *     dev.lanes.shares.QueueWaitUnderFlood [rounds=10] [warmSeconds=1] [seconds=3] [serviceMillis=5]
 * </pre>
 */
public final class QueueWaitUnderFlood {

  static final int TOTAL = 10;
  static final int FLOODERS = 2;
  static final long FLOOD_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  static final int FLOOD_TASK_MILLIS = 5;

  private QueueWaitUnderFlood() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int warm = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int serviceMillis = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    System.out.printf("JDK %s, %d processors, load average %.2f%n", Runtime.version(),
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    for (double load : new double[] {0.3, 0.7}) {
      System.out.printf("%nCheckout load %.0f %% of its 7 guaranteed (mean %.1f running), tasks of"
          + " %d ms; queue wait in microseconds%n", load * 100, load * 7, serviceMillis);
      System.out.println("round  phase      tasks    p50     p90     p99     max   reports refused");
      Map<String, Histogram> pooled = new java.util.LinkedHashMap<>();
      Map<String, List<Long>> p99s = new java.util.LinkedHashMap<>();
      for (int r = 1; r <= rounds; r++) {
        for (String phase : PHASES) {
          Result x = phase(load, serviceMillis, phase, warm, seconds);
          Histogram h = x.waits;
          pooled.computeIfAbsent(phase, k -> new Histogram(TimeUnit.SECONDS.toNanos(60), 3)).add(h);
          p99s.computeIfAbsent(phase, k -> new ArrayList<>()).add(h.getValueAtPercentile(99));
          System.out.printf("%5d  %-9s %6d %7.0f %7.0f %7.0f %7.0f   %d%n", r, phase,
              h.getTotalCount(), us(h.getValueAtPercentile(50)),
              us(h.getValueAtPercentile(90)), us(h.getValueAtPercentile(99)), us(h.getMaxValue()),
              x.reportsRefused);
        }
      }
      System.out.println("all rounds pooled:");
      for (String phase : PHASES) {
        Histogram h = pooled.get(phase);
        List<Long> sorted = p99s.get(phase).stream().sorted().toList();
        System.out.printf("       %-9s %6d %7.0f %7.0f %7.0f %7.0f   median of the rounds' p99 %.0f%n",
            phase, h.getTotalCount(), us(h.getValueAtPercentile(50)),
            us(h.getValueAtPercentile(90)), us(h.getValueAtPercentile(99)), us(h.getMaxValue()),
            us(sorted.get(sorted.size() / 2)));
      }
      List<Double> ratios = new ArrayList<>();
      List<Double> quietRatios = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        double ratio = p99s.get("loaded").get(r) / (double) p99s.get("unloaded").get(r);
        ratios.add(ratio);
        if (p99s.get("no-gate").get(r) < QUIET_NANOS) {
          quietRatios.add(ratio);
        }
      }
      System.out.printf("loaded/unloaded p99: pooled %.2f; median of the rounds' ratios %.2f;"
              + " median of the quiet rounds' ratios %s (%d of %d rounds quiet: no-gate p99 < 1 ms)%n",
          pooled.get("loaded").getValueAtPercentile(99)
              / (double) pooled.get("unloaded").getValueAtPercentile(99),
          medianOf(ratios), quietRatios.isEmpty() ? "-" : String.format("%.2f (%s)",
              medianOf(quietRatios), quietRatios.stream().map(x -> String.format("%.2f", x))
                  .toList()), quietRatios.size(), rounds);
    }
  }

  /** A round is quiet if checkout alone on a plain lane had a p99 below this: the machine let it. */
  static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  static double medianOf(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static long median(List<Long> values) {
    List<Long> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /**
   * No gate (a lane of 10 alone: the machine's own noise), "seven" (a lane of 7 alone, no gate:
   * what a static partition of checkout's guaranteed 7 would give), checkout alone with the shares
   * (it may borrow reports' 3), and with reports flooding (it has its 7).
   */
  static final List<String> PHASES = List.of("no-gate", "seven", "unloaded", "loaded");

  static double us(long nanos) {
    return nanos / 1_000.0;
  }

  record Result(Histogram waits, long reportsRefused) {}

  static Result phase(double load, int serviceMillis, String phase, int warm, int seconds)
      throws Exception {
    boolean flood = phase.equals("loaded");
    PriorityShares db = PriorityShares.builder("db", TOTAL).partition("checkout", 0.7)
        .partition("reports", 0.3).build();
    Map<String, Lane> lanes = phase.equals("no-gate") || phase.equals("seven")
        ? Map.of("checkout", Lane.virtual("db-checkout", phase.equals("seven")
            ? db.guaranteed("checkout") : TOTAL).queueCapacity(10_000).build())
        : db.lanes(p -> Lane.virtual("db-" + p, TOTAL)
            .queueCapacity(p.equals("checkout") ? 10_000 : 50));
    Lane checkout = lanes.get("checkout");
    Lane reports = lanes.get("reports");
    ConcurrentHistogram waits = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(60), 3);
    AtomicBoolean recording = new AtomicBoolean(false);
    AtomicBoolean go = new AtomicBoolean(true);
    AtomicLong refused = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    double ratePerNano = load * db.guaranteed("checkout") / TimeUnit.MILLISECONDS.toNanos(serviceMillis);
    try {
      threads.add(Thread.ofPlatform().name("checkout-arrivals").start(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long next = System.nanoTime();
        while (go.get()) {
          next += (long) (-Math.log(1 - rnd.nextDouble()) / ratePerNano);
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          long submitted = System.nanoTime();
          checkout.execute(() -> {
            if (recording.get()) {
              waits.recordValue(System.nanoTime() - submitted);
            }
            sleep(serviceMillis);
          });
        }
      }));
      if (flood) {
        for (int i = 0; i < FLOODERS; i++) {
          threads.add(Thread.ofPlatform().name("reports-flood-" + i).start(() -> {
            while (go.get()) {
              try {
                reports.execute(() -> sleep(FLOOD_TASK_MILLIS));
              } catch (LaneRejectedException e) {
                refused.incrementAndGet();
              }
              LockSupport.parkNanos(FLOOD_PAUSE_NANOS);
            }
          }));
        }
      }
      Thread.sleep(TimeUnit.SECONDS.toMillis(warm));
      recording.set(true);
      Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
      recording.set(false);
    } finally {
      go.set(false);
      for (Thread t : threads) {
        t.join();
      }
      lanes.values().forEach(Lane::close);
    }
    return new Result(waits, refused.get());
  }

  static void sleep(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
