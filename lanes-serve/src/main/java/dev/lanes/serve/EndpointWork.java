package dev.lanes.serve;

/**
 * What the demo endpoints do, for both demo servers (this module's JDK-HttpServer one and
 * lanes-serve-boot's Spring Boot one): the bound on every {@code ms} a request may ask for, and the
 * CPU work of {@code /cpu}. Stateless; safe from any thread.
 */
public final class EndpointWork {

  /** Largest {@code ms} any endpoint accepts: no request holds a thread or a core for longer. */
  public static final long MAX_MS = 10_000;

  private EndpointWork() {}

  /**
   * {@code ms}, checked against 0 .. {@link #MAX_MS}.
   *
   * @param name the query parameter, for the message
   * @throws IllegalArgumentException {@code "<name> must be between 0 and 10000 ms, was <ms>"}
   */
  public static long checkMillis(String name, long ms) {
    if (ms < 0 || ms > MAX_MS) {
      throw new IllegalArgumentException(name + " must be between 0 and " + MAX_MS + " ms, was " + ms);
    }
    return ms;
  }

  /**
   * Keeps a core busy for {@code ms} of wall time and returns a checksum of the work (so it cannot
   * be optimised away). Stops early, with the thread's interrupt status still set, when the thread
   * is interrupted; the caller checks it.
   */
  public static long spin(long ms) {
    long end = System.nanoTime() + ms * 1_000_000L;
    long x = 17;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
      }
      if (Thread.currentThread().isInterrupted()) {
        break;
      }
    }
    return x & 0xffff;
  }
}
