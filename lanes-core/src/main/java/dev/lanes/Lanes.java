package dev.lanes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The set of lanes an application holds: one per kind of work (a bulkhead each), declared in one
 * builder, looked up by name, closed together.
 *
 * <pre>{@code
 * Lanes lanes = Lanes.of(TaskDecorator.threadLocals(REQUEST_ID),
 *     Lane.cpu("compute"),
 *     Lane.blocking("db", 16).queueCapacity(500),
 *     Lane.virtual("partner-api", 30).queueCapacity(10_000));
 * lanes.lane("db").submit(() -> repository.load(id));
 * System.out.println(lanes.table());
 * }</pre>
 *
 * <p><b>Concurrency design.</b> The name → lane map is copy-on-write under {@code lock}: look-ups
 * read a volatile immutable map without locking; {@link #add} and {@link #remove} replace it. Set
 * listeners are told after the change, outside the lock.
 */
public final class Lanes implements AutoCloseable {

  private final TaskDecorator decorator;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Map<String, Lane> lanes;
  /** Lane names in declaration order; guarded by {@code lock}. */
  private final List<String> order;
  private final CopyOnWriteArrayList<Consumer<? super Lane>> addedListeners =
      new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Consumer<? super Lane>> removedListeners =
      new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private Lanes(TaskDecorator decorator, List<LaneBuilder> builders) {
    this.decorator = decorator;
    Map<String, Lane> built = new LinkedHashMap<>();
    try {
      for (LaneBuilder b : builders) {
        if (built.containsKey(b.name())) {
          throw new IllegalArgumentException("lanes: two lanes are named \"" + b.name() + "\"");
        }
        built.put(b.name(), buildWithDecorator(b));
      }
    } catch (RuntimeException e) {
      built.values().forEach(Lane::shutdownNow);
      throw e;
    }
    this.lanes = Map.copyOf(built);
    this.order = new ArrayList<>(built.keySet());
  }

  /**
   * Builds the lanes (at least one; distinct names). If one fails to build, those built before it
   * are shut down and its failure is thrown.
   *
   * @param lanes the lanes' builders, in the order the set keeps them
   * @return the set, every lane running
   * @throws IllegalArgumentException if there is no lane or two have the same name
   * @throws NullPointerException if a builder is null
   */
  public static Lanes of(LaneBuilder... lanes) {
    return of(TaskDecorator.NONE, lanes);
  }

  /**
   * Builds the lanes with {@code decorator} applied to every lane's tasks, outside each lane's own
   * decorator (and to lanes added later). If one fails to build, those built before it are shut
   * down and its failure is thrown.
   *
   * @param decorator applied to every lane's tasks; {@link TaskDecorator#NONE} for none
   * @param lanes the lanes' builders, in the order the set keeps them
   * @return the set, every lane running
   * @throws IllegalArgumentException if there is no lane or two have the same name
   * @throws NullPointerException if {@code decorator} or a builder is null
   */
  public static Lanes of(TaskDecorator decorator, LaneBuilder... lanes) {
    Objects.requireNonNull(decorator, "decorator");
    if (lanes.length == 0) {
      throw new IllegalArgumentException("lanes: declare at least one lane");
    }
    List<LaneBuilder> all = new ArrayList<>();
    for (LaneBuilder b : lanes) {
      all.add(Objects.requireNonNull(b, "lane"));
    }
    return new Lanes(decorator, all);
  }

  private Lane buildWithDecorator(LaneBuilder b) {
    return b.build(decorator);
  }

  /**
   * The lane called {@code name}; an unknown name fails with a message listing the known ones.
   *
   * @param name the lane's name
   * @return the lane
   * @throws IllegalArgumentException if no lane in the set has that name
   */
  public Lane lane(String name) {
    Lane l = lanes.get(name);
    if (l == null) {
      throw new IllegalArgumentException(
          "lanes: no lane named \"" + name + "\"; known lanes: " + String.join(", ", names()));
    }
    return l;
  }

  /** {@return the lane names in the order they were declared or added; an unmodifiable copy} */
  public List<String> names() {
    lock.lock();
    try {
      return List.copyOf(order);
    } finally {
      lock.unlock();
    }
  }

  /** {@return every lane, in the order they were declared or added; a copy} */
  public Collection<Lane> all() {
    List<Lane> out = new ArrayList<>();
    Map<String, Lane> m = lanes;
    for (String n : names()) {
      Lane l = m.get(n);
      if (l != null) {
        out.add(l);
      }
    }
    return out;
  }

  /**
   * Builds and adds a lane to the running set (the set's task decorator applies), then tells the
   * {@link #onAdded} listeners on this thread.
   *
   * @param builder the new lane's builder
   * @return the new lane, running
   * @throws IllegalArgumentException if a lane of that name is in the set
   * @throws IllegalStateException if the set was closed
   * @throws NullPointerException if {@code builder} is null
   */
  public Lane add(LaneBuilder builder) {
    Objects.requireNonNull(builder, "builder");
    Lane lane;
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("lanes: closed; cannot add lane \"" + builder.name() + "\"");
      }
      if (lanes.containsKey(builder.name())) {
        throw new IllegalArgumentException(
            "lanes: a lane named \"" + builder.name() + "\" already exists");
      }
      lane = buildWithDecorator(builder);
      Map<String, Lane> next = new LinkedHashMap<>(lanes);
      next.put(lane.name(), lane);
      lanes = Map.copyOf(next);
      order.add(lane.name());
    } finally {
      lock.unlock();
    }
    notify(addedListeners, lane);
    return lane;
  }

  /**
   * Removes a lane from the set and closes it (waits for its accepted tasks). Returns the removed
   * lane.
   *
   * @param name the lane's name
   * @return the removed lane, terminated
   * @throws IllegalArgumentException if no lane in the set has that name
   */
  public Lane remove(String name) {
    Lane lane;
    lock.lock();
    try {
      lane = lane(name);
      Map<String, Lane> next = new LinkedHashMap<>(lanes);
      next.remove(name);
      lanes = Map.copyOf(next);
      order.remove(name);
    } finally {
      lock.unlock();
    }
    lane.close();
    notify(removedListeners, lane);
    return lane;
  }

  /**
   * Tells {@code listener} about every lane added from now on (by {@link #add}).
   *
   * @param listener called with each new lane, on the thread that added it
   * @throws NullPointerException if {@code listener} is null
   */
  public void onAdded(Consumer<? super Lane> listener) {
    addedListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Tells {@code listener} about every lane removed from now on (after it was closed).
   *
   * @param listener called with each removed lane, on the thread that removed it
   * @throws NullPointerException if {@code listener} is null
   */
  public void onRemoved(Consumer<? super Lane> listener) {
    removedListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Stops calling a listener given to {@link #onAdded} or {@link #onRemoved}.
   *
   * @param listener the listener
   * @return true if it was registered and is removed
   */
  public boolean removeListener(Object listener) {
    return addedListeners.remove(listener) | removedListeners.remove(listener);
  }

  private static void notify(List<Consumer<? super Lane>> listeners, Lane lane) {
    for (Consumer<? super Lane> l : listeners) {
      l.accept(lane);
    }
  }

  /** {@return the stats of every lane, by name, in the order the lanes were declared or added} */
  public Map<String, LaneStats> stats() {
    Map<String, LaneStats> out = new LinkedHashMap<>();
    for (Lane l : all()) {
      out.put(l.name(), l.stats());
    }
    return out;
  }

  /**
   * {@return a table of every lane for people: queue, wait / run / CPU p50 and p99, rejections,
   * use}
   */
  public String table() {
    return table(stats().values());
  }

  /**
   * The same table for any stats.
   *
   * @param stats the rows, in the order to print them
   * @return the table: a header line, one line per lane with times in milliseconds ({@code -}
   *     where nothing was measured), a line per lane whose tasks pinned their carrier ({@link
   *     LaneStats#pinning()}), and a closing note
   */
  public static String table(Collection<LaneStats> stats) {
    String header = String.format(Locale.ROOT,
        "%-14s %-8s %7s %7s %7s %9s %9s %9s %9s %9s %9s %8s %6s %-9s%n",
        "lane", "kind", "concur", "queued", "running", "wait p50", "wait p99", "run p50",
        "run p99", "cpu p50", "cpu p99", "rejected", "util", "health");
    StringBuilder s = new StringBuilder(header);
    for (LaneStats st : stats) {
      Timings t = st.sinceStart();
      s.append(String.format(Locale.ROOT,
          "%-14s %-8s %7d %7d %7d %9s %9s %9s %9s %9s %9s %8d %5.0f%% %-9s%n",
          st.lane(), st.kind().tag(), st.concurrency(), st.queued(), st.running(),
          ms(t.queueWait(), t.queueWait().p50()), ms(t.queueWait(), t.queueWait().p99()),
          ms(t.runTime(), t.runTime().p50()), ms(t.runTime(), t.runTime().p99()),
          ms(t.cpuTime(), t.cpuTime().p50()), ms(t.cpuTime(), t.cpuTime().p99()),
          st.rejected(),
          Double.isNaN(st.utilisation()) ? 0.0 : 100 * st.utilisation(),
          st.health().name()));
    }
    for (LaneStats st : stats) {
      Pinning p = st.pinning();
      if (p.count() > 0) {
        s.append(String.format(Locale.ROOT,
            "%s pinned its carrier %d time%s for %.1f ms (longest %.1f ms)%s%n", st.lane(),
            p.count(), p.count() == 1 ? "" : "s", p.totalNanos() / 1e6, p.longestNanos() / 1e6, p.sites().isEmpty() ? ""
                : ", most in " + p.sites().get(0).frame() + (p.sites().get(0).label().isEmpty()
                    ? "" : " (label \"" + p.sites().get(0).label() + "\")")));
      }
    }
    s.append("(times in ms; cpu is sampled, '-' where not measured)");
    return s.toString();
  }

  private static String ms(Distribution d, long nanos) {
    if (d.isEmpty()) {
      return "-";
    }
    double v = nanos / 1e6;
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  /** Shuts every lane down, then waits for each (accepted tasks finish). */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    Collection<Lane> all = all();
    all.forEach(Lane::shutdown);
    all.forEach(Lane::close);
  }
}
