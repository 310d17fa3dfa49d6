package dev.lanes.agent.apps;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A service that runs until its standard input closes: a request pool of 2 threads, fed 2 ms
 * tasks every millisecond by a scheduler, which also holds a task due in an hour. Prints "ready"
 * once its pools run.
 */
public final class ServiceApp {
  public static void main(String[] args) throws Exception {
    ExecutorService requests = Executors.newFixedThreadPool(2, FixedPoolApp.named("svc-worker"));
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor(FixedPoolApp.named("svc-feeder"));
    feeder.scheduleAtFixedRate(() -> requests.execute(() -> LockSupport.parkNanos(2_000_000)),
        0, 1, TimeUnit.MILLISECONDS);
    feeder.schedule(() -> { }, 1, TimeUnit.HOURS); // in the schedule, never due while the test runs
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the test closes our stdin
    }
    feeder.shutdownNow();
    requests.shutdownNow();
    requests.awaitTermination(10, TimeUnit.SECONDS);
  }
}
