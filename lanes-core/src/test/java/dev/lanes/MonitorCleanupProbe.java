package dev.lanes;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Run in its own JVM by {@link MonitorCleanupTest}: builds unclosed virtual lanes, drops every
 * reference to them, and prints whether they were collected and the health thread ended.
 */
public final class MonitorCleanupProbe {
  private MonitorCleanupProbe() {}

  public static void main(String[] args) throws Exception {
    int lanes = Integer.parseInt(args[0]);
    java.util.concurrent.atomic.AtomicInteger inheritedBy = new java.util.concurrent.atomic.AtomicInteger();
    ThreadLocal<String> inherited = new InheritableThreadLocal<>() {
      @Override
      protected String childValue(String parentValue) {
        inheritedBy.incrementAndGet(); // called for each thread that inherits it
        return parentValue;
      }
    };
    inherited.set("web-app context");
    Lane first = Lane.virtual("first", 1).build(); // starts the health thread, no worker yet
    System.out.println("health_thread_inherited_locals=" + (inheritedBy.get() > 0));
    first.close();
    first = null;
    List<WeakReference<Lane>> refs = new ArrayList<>();
    for (int i = 0; i < lanes; i++) {
      Lane lane = Lane.virtual("unclosed-" + i, 2).build();
      lane.submit(() -> "ran").get();
      refs.add(new WeakReference<>(lane));
    }
    Thread health = healthThread();
    System.out.println("health_thread_started=" + (health != null));
    System.out.println("health_ccl_null=" + (health != null && health.getContextClassLoader() == null));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      System.gc();
      long alive = refs.stream().filter(r -> r.get() != null).count();
      if (alive == 0 && healthThread() == null) {
        break;
      }
      Thread.sleep(50); // waiting for the collector and the health thread's next tick
    }
    System.out.println("lanes_alive=" + refs.stream().filter(r -> r.get() != null).count());
    System.out.println("health_thread_alive=" + (healthThread() != null));
    // A lane built afterwards starts the health thread again.
    try (Lane again = Lane.virtual("again", 1).build()) {
      again.submit(() -> "ran").get();
      System.out.println("health_thread_restarted=" + (healthThread() != null));
    }
  }

  private static Thread healthThread() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("lanes-health") && t.isAlive()) {
        return t;
      }
    }
    return null;
  }
}
