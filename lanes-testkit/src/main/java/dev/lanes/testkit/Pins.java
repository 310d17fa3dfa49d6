package dev.lanes.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * A real pin of a virtual thread's carrier, on any JDK that has virtual threads: blocking inside a
 * class initializer, where the JVM cannot unmount the thread (JDK 25 included). Each call
 * initializes a fresh copy of {@link PinSleeper} in a class loader of its own, so every call pins,
 * not only the first in the JVM.
 */
public final class Pins {
  private static volatile long sleepMillis;

  private Pins() {}

  /**
   * Sleeps {@code time} inside a class initializer on the calling thread: called on a virtual
   * thread, it pins that thread's carrier for that long.
   */
  public static void sleepInClassInitializer(Duration time) {
    sleepMillis = time.toMillis();
    try {
      Class.forName(PinSleeper.class.getName(), true, new FreshLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** How long the next {@link PinSleeper} initializer sleeps (public: it runs in another loader). */
  public static long sleepMillis() {
    return sleepMillis;
  }

  /** Defines its own copy of {@link PinSleeper}; everything else comes from the parent. */
  private static final class FreshLoader extends ClassLoader {
    FreshLoader() {
      super(Pins.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(PinSleeper.class.getName())) {
        return super.loadClass(name, resolve);
      }
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        try (InputStream in = Pins.class.getResourceAsStream("PinSleeper.class")) {
          byte[] bytes = in.readAllBytes();
          c = defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      return c;
    }
  }
}
