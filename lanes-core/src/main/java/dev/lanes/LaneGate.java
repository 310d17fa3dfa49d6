package dev.lanes;

/**
 * Decides whether a lane's queued task may start now, and hears how it ended: a limit beyond the
 * lane's own concurrency that the lane does not own (a cap shared with other processes, a
 * downstream's budget). Set with {@link LaneBuilder#gate(LaneGate)}. In the spirit of Netflix
 * concurrency-limits' {@code Limiter} → {@code Listener}: the gate decides, the lane enforces.
 *
 * <pre>{@code
 * Semaphore downstream = new Semaphore(4);
 * LaneGate gate = ready -> downstream.tryAcquire() ? outcome -> downstream.release() : null;
 * // (a real gate also calls ready.run() when it releases; see tryEnter)
 * Lane api = Lane.virtual("api", 10).gate(gate).build();   // at most 4 of its tasks run at once
 * }</pre>
 *
 * <p><b>Contract.</b> Before a worker of the lane — one that holds one of the lane's own
 * threads or permits, so at most {@code concurrency} of them at once — takes a queued task, it
 * calls {@link #tryEnter}. With a {@link Pass} in hand it takes the oldest queued task and runs
 * it; when that task ends, however it ends, the pass's {@link Pass#exit} is called exactly once,
 * on the worker, after the task's code returned and before the worker completes its future (a
 * future cancelled while its task runs is done at the cancel, as the JDK's are, and its pass goes
 * back when the task's code returns). If the queue
 * turned out empty (another worker took the task), the pass is returned unused ({@code
 * exit(null)}). Without a pass the worker parks as an idle worker does, holding no task, until
 * {@code ready} runs, the lane shuts down now, or its concurrency changes; then it asks again if
 * tasks are still queued. Every task given to the lane ({@code submit}, {@code execute}, {@code
 * invokeAll}, {@code CompletableFuture.supplyAsync(.., lane)}, anything built on them) passes
 * the gate; a task's queue wait includes its wait at the gate, so the lane's figures, health (a
 * gate that never opens makes the lane {@code SATURATED}) and books stay the lane's own.
 *
 * <p><b>Failure model.</b> A {@code tryEnter} that throws counts as "not now": what it threw is
 * logged (at most one line per lane per 10 s) and the worker asks again after a back-off (1 ms,
 * doubling to 1 s), so a gate that fails loses no task and no permit, and a gate that always
 * fails leaves the tasks queued (the lane turns {@code SATURATED}; {@code shutdownNow()} returns
 * them). An {@code exit} that throws is logged the same way and counts as done: the lane never
 * calls it again. {@code shutdown()} lets queued tasks through the gate as they pass it, so a lane
 * whose gate stays shut terminates only by {@code shutdownNow()}, which ends the workers waiting at
 * the gate at once. A gate may also refuse the oldest queued task for good by returning {@link
 * #REFUSE}: the worker ends that task as {@link TaskOutcome#GATE_REFUSED} (its future fails with a
 * {@link LaneRejectedException}), through the same path as every queued task that never runs.
 *
 * <p>A gate is called from many threads at once and must be thread-safe. It must not block for
 * long in {@code tryEnter} (a worker waits in it, and the time counts as queue wait) and must not
 * hand out a pass for later: {@code null} reserves nothing for the caller, so a gate that prepares
 * a pass asynchronously (asks a remote service) keeps it for whoever asks next, and gives it up
 * itself if nobody does.
 */
public interface LaneGate {

  /**
   * Asks whether one more task may start now.
   *
   * @param ready to run (once, from any thread, without blocking) when a retry may succeed, if
   *     this returns {@code null}; the same worker passes the same object every time, so a gate
   *     may key its waiters by it. A spurious, late or repeated call is harmless: the worker
   *     asks again.
   * @return a pass (the task may start), {@code null} (not now), or {@link #REFUSE}
   */
  Pass tryEnter(Runnable ready);

  /**
   * Returned by {@link #tryEnter} to refuse the oldest queued task for good: the lane ends it as
   * {@link TaskOutcome#GATE_REFUSED}. Never exited.
   */
  Pass REFUSE = outcome -> { };

  /** Leave to start one task, given back once when the task ends. */
  @FunctionalInterface
  interface Pass {
    /**
     * The task started with this pass ended ({@code COMPLETED}, {@code FAILED} — a worker that
     * died under it included — or {@code CANCELLED} while it ran), or the pass was not used
     * ({@code null}: no task was queued any more). Called exactly once per pass, after the task's
     * code returned. Keep it quick: it runs on the lane's worker.
     *
     * @param outcome how the task ended, or null if no task started with this pass
     */
    void exit(TaskOutcome outcome);
  }
}
