package dev.lanes.serve.boot;

import dev.lanes.serve.EndpointWork;

/**
 * What the endpoints do, wherever they run: lanes-serve's {@link EndpointWork} (the same bound on
 * {@code ms} and the same CPU work as the JDK-HttpServer demo). Each returns a line naming its thread.
 */
final class Work {
  private Work() {}

  /** {@code ms} within the demos' bound, or an {@link IllegalArgumentException} (answered 400). */
  static long checkMs(long ms) {
    return EndpointWork.checkMillis("ms", ms);
  }

  static String fast() {
    return "fast on " + Thread.currentThread().getName() + "\n";
  }

  static String slow(long ms) throws InterruptedException {
    Thread.sleep(ms);
    return "slow " + ms + " ms on " + Thread.currentThread().getName() + "\n";
  }

  static String cpu(long ms) {
    long checksum = EndpointWork.spin(ms);
    return "cpu " + ms + " ms on " + Thread.currentThread().getName() + " (" + checksum + ")\n";
  }
}
