package dev.lanes.serve.boot;

import java.util.concurrent.TimeUnit;

/** What the endpoints do, wherever they run. Each returns a line naming its thread. */
final class Work {
  /** Largest {@code ms} an endpoint accepts. */
  static final int MAX_MS = 10_000;

  private Work() {}

  static int checkMs(int ms) {
    if (ms < 0 || ms > MAX_MS) {
      throw new IllegalArgumentException("ms must be between 0 and " + MAX_MS + ", was " + ms);
    }
    return ms;
  }

  static String fast() {
    return "fast on " + Thread.currentThread().getName() + "\n";
  }

  static String slow(int ms) throws InterruptedException {
    Thread.sleep(ms);
    return "slow " + ms + " ms on " + Thread.currentThread().getName() + "\n";
  }

  static String cpu(int ms) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + 17) ^ x;
    }
    return "cpu " + ms + " ms on " + Thread.currentThread().getName() + " (" + (x & 1) + ")\n";
  }
}
