package dev.lanes;

/**
 * Knows which lane worker, if any, the current thread is, so that a lanes future's {@code get} or
 * {@code join} can tell its lane "a worker of yours now waits on this future". A thread that is no
 * lane worker pays one thread-local read per blocking wait; nothing is done for a future that is
 * already complete.
 *
 * <p>A timed wait ({@code get(timeout, unit)}) is registered too, but marked timed: it ends by
 * itself, so it never proves a deadlock.
 */
final class WaitTracker {
  private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

  private WaitTracker() {}

  record Registration(Worker worker, LaneFuture<?> previous, boolean previousTimed) {}

  static void enter(Worker w) {
    CURRENT.set(w);
  }

  static void exit() {
    CURRENT.remove();
  }

  static Worker current() {
    return CURRENT.get();
  }

  static Registration beforeWait(LaneFuture<?> future, boolean timed) {
    Worker w = CURRENT.get();
    if (w == null) {
      return null;
    }
    Registration r = new Registration(w, w.waitingOn, w.waitTimed);
    w.waitOn(future, timed);
    if (!timed) {
      Deadlocks.workerWaits(w, future);
    }
    return r;
  }

  static void afterWait(Registration r) {
    if (r != null) {
      r.worker().waitOn(r.previous(), r.previousTimed());
    }
  }
}
