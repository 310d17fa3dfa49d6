package dev.lanes.agent;

/** What kind of pool a record measures; decides how its queue is read and which checks apply. */
enum PoolKind {
  /** {@code java.util.concurrent.ThreadPoolExecutor} or a subclass (not the scheduled one). */
  THREAD_POOL("ThreadPoolExecutor"),
  /** {@code java.util.concurrent.ScheduledThreadPoolExecutor}: wait counts from the due time. */
  SCHEDULED("ScheduledThreadPoolExecutor"),
  /** Tomcat's {@code org.apache.tomcat.util.threads.ThreadPoolExecutor} (a copy, not a subclass). */
  TOMCAT("Tomcat ThreadPoolExecutor"),
  /** A {@code ForkJoinPool} other than the common pool. */
  FORK_JOIN("ForkJoinPool"),
  /** {@code ForkJoinPool.commonPool()}. */
  COMMON_POOL("ForkJoinPool common pool"),
  /** A Netty single-thread event executor (an event loop). */
  EVENT_LOOP("Netty event loop"),
  /** Pools past the cap ({@code max-pools}), added up. */
  OTHER("other");

  final String label;

  PoolKind(String label) {
    this.label = label;
  }

  /** True for pools whose threads must not block (a blocked thread stalls every task behind it). */
  boolean mustNotBlock() {
    return this == COMMON_POOL || this == EVENT_LOOP;
  }

  /** True for the pools built like the JDK's ThreadPoolExecutor (a queue, workers, a handler). */
  boolean isThreadPool() {
    return this == THREAD_POOL || this == SCHEDULED || this == TOMCAT;
  }

  static PoolKind of(Object pool) {
    if (pool instanceof java.util.concurrent.ScheduledThreadPoolExecutor) {
      return SCHEDULED;
    }
    if (pool instanceof java.util.concurrent.ThreadPoolExecutor) {
      return THREAD_POOL;
    }
    if (pool instanceof java.util.concurrent.ForkJoinPool fj) {
      return fj == java.util.concurrent.ForkJoinPool.commonPool() ? COMMON_POOL : FORK_JOIN;
    }
    for (Class<?> c = pool.getClass(); c != null; c = c.getSuperclass()) {
      String n = c.getName();
      if (n.equals("org.apache.tomcat.util.threads.ThreadPoolExecutor")) {
        return TOMCAT;
      }
      if (n.equals("io.netty.util.concurrent.SingleThreadEventExecutor")) {
        return EVENT_LOOP;
      }
    }
    return OTHER;
  }
}
