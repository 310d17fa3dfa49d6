package dev.lanes.stages;

import dev.lanes.Lane;
import dev.lanes.TaskRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Lanes chained into stages: each item goes through the stages in order, each stage's work
 * running on that stage's lane — e.g. fetch on a virtual lane, parse on a CPU lane, store on a
 * blocking lane (the SEDA shape: a pool per kind of work). {@link #submit} returns a {@link
 * CompletableFuture} of the last stage's result; an item that does not get through fails it with
 * a {@link StageException} naming the stage. {@link #stats()} gives each stage's queue wait and run
 * time for this pipeline's tasks, the end-to-end time, and a {@link Bottleneck} verdict.
 *
 * <pre>{@code
 * try (Pipeline<URI, Long> ingest = Pipeline.<URI>builder("ingest")
 *     .stage("fetch", io, uri -> http.get(uri))
 *     .stage("parse", cpu, body -> Json.parse(body))
 *     .stage("store", db, doc -> repository.save(doc))
 *     .build()) {
 *   CompletableFuture<Long> id = ingest.submit(uri);
 *   ...
 *   System.out.print(ingest.stats().table());
 * }
 * }</pre>
 *
 * <p><b>Bounded hand-offs and back-pressure.</b> A pipeline keeps no queue of its own: an item
 * waits only in its stage's lane, whose queue is bounded, and a stage's task hands its result to
 * the next stage by submitting it to the next lane <i>from inside the task</i>, on the stage's own
 * thread. What happens when the next lane is full is that lane's {@code OverflowPolicy}:
 *
 * <ul>
 *   <li>{@code blockCaller(timeout)} — back-pressure: the stage's thread waits for room (its time
 *       shows as the stage's {@code handoff}), so a full stage slows the one before it, whose own
 *       queue then fills, up to {@link #submit}, which blocks the producer when the first stage's
 *       lane does. After the timeout the item is rejected at the full stage.
 *   <li>{@code reject()} (lanes' default) — the item is refused at the full stage: its future fails
 *       with a {@link StageException} whose {@link StageException#rejected()} is true, counted
 *       under that stage's {@code rejected}.
 *   <li>{@code callerRuns()} — the full stage's work runs on the thread handing the item on, which
 *       slows the stage before it by exactly that work.
 *   <li>{@code discardOldest()} — the full stage drops its oldest queued item (that item is
 *       rejected there, counted) to take the new one.
 * </ul>
 *
 * Whatever the policy, no stage ever holds more than its lane's {@code concurrency +
 * queueCapacity} tasks. A lane may run several stages (and other work), except a block-caller lane,
 * which {@link PipelineBuilder#build()} refuses for two stages: its threads could all wait for room
 * that only they can make.
 *
 * <p><b>Every item is accounted for.</b> Each submitted item ends exactly once: completed (through
 * every stage), failed at a stage (its function threw), or rejected at a stage (refused or dropped
 * by its lane) — and is counted so before its future completes (see {@link PipelineStats} for the
 * books and how exact they are). {@link #submit} never throws for a full lane; its future fails
 * instead. Completing or cancelling the returned future yourself does not stop the item: its
 * stages run on and it is counted as usual.
 *
 * <p><b>Where user code runs.</b> A stage's function runs in its lane's task (its queue wait and run
 * are that task's, from the lane's own {@link TaskRecord}s, labelled {@code <pipeline>/<stage>}).
 * The item's future is completed after the last stage's task ended, outside any task's run time,
 * on a thread of the pipeline's lanes: the last lane's, as a rule, so the dependent stages you
 * attach without an executor run there (lanes counts such time as the lane's {@code
 * betweenTasksNanos}). When the last stage's task ends before the stage before it has finished
 * handing the item on (the hand-off watches the task's future after submitting it), the item is
 * completed on the handing stage's thread instead, also after its task's run.
 *
 * <p><b>Concurrency design.</b> Immutable after construction but for the books: per stage, {@link
 * StageBook}'s adders and recorders (see there); per pipeline, adders for submitted and completed
 * items and a {@link Recorder} for end-to-end time, drained under this object's monitor by {@link
 * #stats()}. Each item is an {@code Item} with a compare-and-set "ended" flag, so it ends once even
 * if two paths race; each stage task has a state (queued → ran, or queued → dropped) set by
 * compare-and-set, so a task either runs or is counted as dropped, never both. Happens-before:
 * an item's value is handed from one stage to the next through the lane's submit (the lane
 * publishes the task to the thread that runs it), and the counts are updated before the future
 * completes, so a thread that saw the future complete sees the counts. The lanes' task records
 * reach the pipeline through one {@code onTask} listener per lane (removed by {@link #close()}),
 * matched to a stage by label. Closing twice is harmless; {@link #submit} after close throws.
 *
 * @param <I> the type of the items submitted
 * @param <O> the type of the last stage's result
 */
public final class Pipeline<I, O> implements AutoCloseable {

  /** Labels in use by open pipelines, per lane: two pipelines of one name would mix their figures. */
  private static final Set<LabelKey> LABELS_IN_USE = ConcurrentHashMap.newKeySet();

  private record LabelKey(Lane lane, String label) {}

  private final String name;
  private final List<StageBook> stages;
  private final Map<Lane, Consumer<TaskRecord>> listeners = new IdentityHashMap<>();
  private final long builtNanos = System.nanoTime();
  private final LongAdder submitted = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final Recorder endToEnd = new Recorder(StageBook.MAX_NANOS, 2);
  private final AtomicBoolean closed = new AtomicBoolean();

  // Guarded by this.
  private final Histogram endToEndTotal = new Histogram(StageBook.MAX_NANOS, 2);
  private Histogram endToEndRecycle;

  /**
   * Starts a builder for a pipeline whose items are of type {@code I}: {@code
   * Pipeline.<URI>builder("ingest")}.
   *
   * @param <I> the type of the items submitted
   * @param name the pipeline's name: 1 to {@value PipelineBuilder#MAX_NAME_LENGTH} printable
   *     characters, no {@code /}
   * @return a builder with no stages
   * @throws IllegalArgumentException if the name is not valid
   */
  public static <I> PipelineBuilder<I, I> builder(String name) {
    return PipelineBuilder.start(name);
  }

  Pipeline(String name, List<PipelineBuilder.StageSpec> specs) {
    this.name = name;
    Map<Lane, Integer> uses = new IdentityHashMap<>();
    for (PipelineBuilder.StageSpec s : specs) {
      uses.merge(s.lane(), 1, Integer::sum);
    }
    List<StageBook> books = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      PipelineBuilder.StageSpec s = specs.get(i);
      books.add(new StageBook(name, s.name(), i, s.lane(), s.work(), uses.get(s.lane()) > 1));
    }
    this.stages = List.copyOf(books);
    List<LabelKey> taken = new ArrayList<>();
    for (StageBook b : stages) {
      LabelKey key = new LabelKey(b.lane, b.label);
      if (!LABELS_IN_USE.add(key)) {
        taken.forEach(LABELS_IN_USE::remove);
        throw new IllegalStateException("pipeline \"" + name + "\": lane \"" + b.lane.name()
            + "\" already runs a pipeline named \"" + name + "\" that is not closed (task label \""
            + b.label + "\"); close that one first or name this one differently");
      }
      taken.add(key);
    }
    Map<Lane, Map<String, StageBook>> byLane = new LinkedHashMap<>();
    for (StageBook b : stages) {
      byLane.computeIfAbsent(b.lane, l -> new HashMap<>()).put(b.label, b);
    }
    byLane.forEach((lane, labels) -> {
      Map<String, StageBook> mine = Map.copyOf(labels);
      Consumer<TaskRecord> listener = r -> {
        StageBook b = mine.get(r.label());
        if (b != null) {
          b.record(r);
        }
      };
      listeners.put(lane, listener);
      lane.onTask(listener);
    });
  }

  /** {@return the pipeline's name} */
  public String name() {
    return name;
  }

  /** {@return the stages' names, in order} */
  public List<String> stageNames() {
    return stages.stream().map(b -> b.name).toList();
  }

  /**
   * Hands {@code item} to the first stage. Under the first lane's {@code blockCaller} policy this
   * waits for room (back-pressure on the producer); under {@code callerRuns} the first stage may
   * run on this thread. A refusal does not throw: the returned future is then already failed.
   *
   * @param item the item; may be null if the first stage's function accepts null
   * @return a future of the last stage's result, or failed with a {@link StageException} naming the
   *     stage the item did not get through
   * @throws IllegalStateException if the pipeline is closed
   */
  public CompletableFuture<O> submit(I item) {
    if (closed.get()) {
      throw new IllegalStateException("pipeline \"" + name + "\" is closed");
    }
    Item it = new Item(System.nanoTime());
    submitted.increment();
    offer(0, item, it);
    @SuppressWarnings("unchecked")
    CompletableFuture<O> result = (CompletableFuture<O>) it.result;
    return result;
  }

  /** Hands {@code value} to stage {@code k}: submits its task to the stage's lane. */
  private void offer(int k, Object value, Item item) {
    StageBook stage = stages.get(k);
    StageTask task = new StageTask(stage, value, item);
    CompletableFuture<Object> f;
    try {
      f = stage.lane.submit(stage.label, task);
    } catch (RejectedExecutionException e) {
      stage.offered.increment();
      if (task.claimDropped()) {
        fail(item, stage, true, e);
      }
      return;
    } catch (RuntimeException | Error e) {
      // Not a refusal, which lanes does not throw: the item fails at this stage. Not rethrown, so
      // that the stage handing it on (if any) is not counted as failing the same item again.
      stage.offered.increment();
      if (task.claimDropped()) {
        fail(item, stage, false, e);
      }
      return;
    }
    // Counted once the lane has it (not while a blocked hand-off waits for room), so that "in
    // stage" never counts an item that is still held by the stage before.
    stage.offered.increment();
    f.whenComplete((v, x) -> task.ended(v, x));
  }

  /** Ends the item at {@code stage}, counted there as rejected or failed, then fails its future. */
  private void fail(Item item, StageBook stage, boolean rejected, Throwable cause) {
    if (item.end()) {
      (rejected ? stage.rejected : stage.failed).increment();
      item.result.completeExceptionally(
          new StageException(name, stage.name, stage.index, stages.size(), rejected, cause));
    }
  }

  private void succeed(Item item, Object value) {
    if (item.end()) {
      endToEnd.recordValue(StageBook.clamp(System.nanoTime() - item.submittedNanos));
      completed.increment();
      item.result.complete(value);
    }
  }

  /**
   * {@return a snapshot of the pipeline's counts and figures, with the bottleneck verdict} Each
   * stage's lane gauges are read from the lane's own {@code stats()}.
   */
  public synchronized PipelineStats stats() {
    List<StageStats> s = new ArrayList<>();
    long failed = 0;
    long rejected = 0;
    for (StageBook b : stages) {
      StageStats st = b.snapshot();
      failed += st.failed();
      rejected += st.rejected();
      s.add(st);
    }
    long done = completed.sum();
    long sub = Math.max(submitted.sum(), done + failed + rejected);
    Histogram interval = endToEnd.getIntervalHistogram(endToEndRecycle);
    endToEndTotal.add(interval);
    endToEndRecycle = interval;
    return new PipelineStats(name, System.nanoTime() - builtNanos, sub, done, failed, rejected,
        StageBook.distribution(endToEndTotal), s, Bottleneck.of(s));
  }

  /**
   * Stops following the lanes' task records and frees the pipeline's name on its lanes; submit
   * then throws. Items in flight still run to an end and are counted, but their tasks' timings
   * are no longer recorded. The lanes are not closed: they are yours.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    listeners.forEach(Lane::removeListener);
    for (StageBook b : stages) {
      LABELS_IN_USE.remove(new LabelKey(b.lane, b.label));
    }
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Pipeline[").append(name).append(": ");
    for (StageBook b : stages) {
      s.append(b.index == 0 ? "" : " -> ").append(b.name).append('@').append(b.lane.name());
    }
    return s.append(", submitted ").append(submitted.sum()).append(", completed ")
        .append(completed.sum()).append(closed.get() ? ", closed]" : "]").toString();
  }

  /** One submitted item: its future and whether it has ended. */
  private static final class Item {
    final long submittedNanos;
    final CompletableFuture<Object> result = new CompletableFuture<>();
    private final AtomicBoolean ended = new AtomicBoolean();

    Item(long submittedNanos) {
      this.submittedNanos = submittedNanos;
    }

    /** True for the one caller that ends the item. */
    boolean end() {
      return ended.compareAndSet(false, true);
    }
  }

  /** One item's task in one stage: runs the stage's work, then hands the result on. */
  private final class StageTask implements Callable<Object> {
    private static final int QUEUED = 0;
    private static final int RAN = 1;
    private static final int DROPPED = 2;

    private final StageBook stage;
    private final Object value;
    private final Item item;
    private final AtomicInteger state = new AtomicInteger(QUEUED);

    StageTask(StageBook stage, Object value, Item item) {
      this.stage = stage;
      this.value = value;
      this.item = item;
    }

    /** True if the task never ran and is now marked dropped (so it never will). */
    boolean claimDropped() {
      return state.compareAndSet(QUEUED, DROPPED);
    }

    @Override
    public Object call() {
      if (!state.compareAndSet(QUEUED, RAN)) {
        return null; // already counted as dropped; lanes does not run a dropped task, but be sure
      }
      Object out = stage.work.apply(value); // what it throws fails the lane's future: see ended()
      stage.completed.increment();
      if (stage.index + 1 == stages.size()) {
        return out; // the item completes in ended(), after this task
      }
      long t0 = System.nanoTime();
      try {
        offer(stage.index + 1, out, item);
      } finally {
        stage.recordHandoff(System.nanoTime() - t0);
      }
      return null;
    }

    /** The lane's future for this task completed: with the last stage's result, or not at all. */
    void ended(Object v, Throwable x) {
      if (x == null) {
        if (stage.index + 1 == stages.size() && state.get() == RAN) {
          succeed(item, v);
        }
        return;
      }
      Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
      // Dropped before it ran (discard-oldest, shutdownNow, a deadlock broken): rejected there.
      // Otherwise it ran and the stage's work threw.
      fail(item, stage, claimDropped(), cause);
    }
  }
}
