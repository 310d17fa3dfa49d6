package dev.lanes.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * Reaches the {@link CompletableFuture} behind a task that {@code CompletableFuture.runAsync} or
 * {@code supplyAsync} handed to a lane's {@code execute}, so that the FAIL deadlock policy can
 * fail it. The JDK keeps that future in a private field, so this works only where {@code
 * java.base/java.util.concurrent} is open to lanes ({@code --add-opens
 * java.base/java.util.concurrent=ALL-UNNAMED}, or {@code Add-Opens} in an executable jar's
 * manifest); elsewhere {@link #isReachable} is false and the policy falls back to compensation.
 */
final class ForeignFutures {
  private static final Class<?> ASYNC_RUN = load("java.util.concurrent.CompletableFuture$AsyncRun");
  private static final Class<?> ASYNC_SUPPLY =
      load("java.util.concurrent.CompletableFuture$AsyncSupply");
  private static final VarHandle RUN_DEP = dep(ASYNC_RUN);
  private static final VarHandle SUPPLY_DEP = dep(ASYNC_SUPPLY);

  private ForeignFutures() {}

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static VarHandle dep(Class<?> c) {
    if (c == null) {
      return null;
    }
    try {
      return MethodHandles.privateLookupIn(c, MethodHandles.lookup())
          .findVarHandle(c, "dep", CompletableFuture.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // package not open to us
    }
  }

  static boolean isReachable(Object task) {
    return future(task) != null;
  }

  private static CompletableFuture<?> future(Object task) {
    if (task == null) {
      return null;
    }
    if (RUN_DEP != null && task.getClass() == ASYNC_RUN) {
      return (CompletableFuture<?>) RUN_DEP.getVolatile(task);
    }
    if (SUPPLY_DEP != null && task.getClass() == ASYNC_SUPPLY) {
      return (CompletableFuture<?>) SUPPLY_DEP.getVolatile(task);
    }
    return null;
  }

  static boolean completeExceptionally(Object task, Throwable ex) {
    CompletableFuture<?> f = future(task);
    return f != null && f.completeExceptionally(ex);
  }
}
