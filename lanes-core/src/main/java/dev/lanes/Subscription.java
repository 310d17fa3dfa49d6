package dev.lanes;

/** A registration that {@link #close()} undoes. Closing twice is harmless. */
@FunctionalInterface
public interface Subscription extends AutoCloseable {
  @Override
  void close();
}
