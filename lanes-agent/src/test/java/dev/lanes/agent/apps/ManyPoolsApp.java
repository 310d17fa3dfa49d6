package dev.lanes.agent.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code pools N}: N pools (made on one line, so named alike), 10 tasks each, then the names of
 * the threads alive at the end. {@code queued N}: one pool whose single thread is held while N
 * tasks queue behind it.
 */
public final class ManyPoolsApp {
  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[1]);
    if (args[0].equals("pools")) {
      List<ExecutorService> pools = new ArrayList<>();
      List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.util.concurrent.ThreadFactory jdkNames = Executors.defaultThreadFactory();
      for (int i = 0; i < n; i++) {
        ExecutorService p = Executors.newFixedThreadPool(1, r -> {
          Thread t = jdkNames.newThread(r); // the JDK's names ("pool-N-thread-M"), kept for joining
          workers.add(t);
          return t;
        });
        pools.add(p);
        CountDownLatch done = new CountDownLatch(10);
        for (int t = 0; t < 10; t++) {
          p.execute(done::countDown);
        }
        done.await();
      }
      for (ExecutorService p : pools) {
        p.shutdown();
        p.awaitTermination(10, TimeUnit.SECONDS);
      }
      for (Thread t : workers) {
        t.join(); // a terminated pool's last thread may not have ended yet
      }
    } else {
      ExecutorService p = Executors.newFixedThreadPool(1, FixedPoolApp.named("held"));
      CountDownLatch release = new CountDownLatch(1);
      p.execute(() -> {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      CountDownLatch done = new CountDownLatch(n);
      for (int t = 0; t < n; t++) {
        p.execute(done::countDown);
      }
      release.countDown();
      done.await();
      p.shutdown();
      p.awaitTermination(10, TimeUnit.SECONDS);
    }
    TreeSet<String> names = new TreeSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      names.add(t.getName());
    }
    System.out.println("threads: " + names);
  }
}
