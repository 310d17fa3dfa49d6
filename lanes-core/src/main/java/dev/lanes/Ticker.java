package dev.lanes;

/**
 * The clock a lane reads for every timestamp: nanoseconds from an arbitrary origin, only
 * differences meaningful (as {@link System#nanoTime()}). Lanes use {@link #system()} unless a
 * builder is given another one, e.g. a manual clock in a test.
 */
@FunctionalInterface
public interface Ticker {

  /** {@return the current reading, in nanoseconds} */
  long read();

  /** {@return the ticker that reads {@link System#nanoTime()}; always the same instance} */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }
}

/** The system ticker; an enum so that it is one instance and the lane can recognise it. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return "Ticker.system()";
  }
}
