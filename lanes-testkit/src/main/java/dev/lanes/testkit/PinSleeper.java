package dev.lanes.testkit;

/** Sleeps in its initializer for {@link Pins#sleepMillis()}: see {@link Pins}. */
public final class PinSleeper {
  static {
    try {
      Thread.sleep(Pins.sleepMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private PinSleeper() {}
}
