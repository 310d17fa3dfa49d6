package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scheduled pool of 2 workers on a busy host: 5 tasks due in 10 minutes, a task every 5 ms
 * until it ran 600 times, and a CPU burner on every core (plus one) meanwhile. The periodic task
 * is then cancelled; the 5 stay in the schedule when the app ends (its workers are daemons).
 */
public final class ScheduledApp {
  private static volatile boolean burning = true;

  public static void main(String[] args) throws Exception {
    AtomicLong n = new AtomicLong();
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(2, r -> {
      Thread t = new Thread(r, "timers-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    pool.setRemoveOnCancelPolicy(true);
    for (int i = 0; i < 5; i++) {
      pool.schedule(() -> { }, 10, TimeUnit.MINUTES);
    }
    List<Thread> burners = new ArrayList<>();
    for (int i = 0; i <= Runtime.getRuntime().availableProcessors(); i++) {
      Thread t = new Thread(ScheduledApp::burn, "burner-" + i);
      t.start();
      burners.add(t);
    }
    CountDownLatch ticks = new CountDownLatch(600);
    ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(ticks::countDown, 0, 5, TimeUnit.MILLISECONDS);
    ticks.await();
    periodic.cancel(false);
    burning = false;
    for (Thread t : burners) {
      t.join();
    }
    System.out.println("ticked");
  }

  private static void burn() {
    long x = 0;
    while (burning) {
      x += System.nanoTime() % 7;
    }
    if (x == 42) {
      System.out.println(x);
    }
  }
}
