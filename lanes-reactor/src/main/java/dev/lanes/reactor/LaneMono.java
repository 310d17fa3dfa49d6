package dev.lanes.reactor;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import reactor.core.publisher.Mono;

/**
 * Lane work as a {@link Mono} whose task has a deadline to start: the Reactor side of {@link
 * Lane#submit(String, Duration, Callable)}.
 *
 * <pre>{@code
 * Mono<User> user = LaneMono.fromCallable(db, "load-user", Duration.ofMillis(200), () -> load(id));
 * }</pre>
 *
 * <p>Each subscription submits the task to the lane. If it is still queued when {@code
 * startWithin} is up, it never starts and the {@code Mono} fails with the lane's {@link
 * LaneRejectedException} (reason {@code EXPIRED}, counted so in the lane) — rather than waiting
 * on. A refusal at submission (a full lane, say) fails the {@code Mono} the same way. Cancelling
 * the subscription (a {@code timeout} downstream, a {@code dispose}) cancels the lane's future: a
 * task still queued never starts (the lane counts it {@code CANCELLED}). A task that returns
 * {@code null} completes the {@code Mono} empty.
 *
 * <p>Why not {@code subscribeOn} with a deadline: a scheduler runs Reactor's own runnable, and a
 * runnable the lane expires would leave its subscriber waiting for good; this {@code Mono} holds
 * the lane's future and hears how the task ended.
 */
public final class LaneMono {
  private LaneMono() {}

  /**
   * A {@code Mono} of {@code task}'s result, run on {@code lane}, started within {@code
   * startWithin} of each subscription or not at all.
   *
   * @param <T> the result's type
   * @param lane the lane to run on
   * @param label the task's label ({@code ""} for none)
   * @param startWithin how long from subscription the task may wait in the lane's queue
   * @param task the task
   * @return a cold {@code Mono}: each subscription submits the task once
   * @throws NullPointerException if an argument is null
   */
  public static <T> Mono<T> fromCallable(
      Lane lane, String label, Duration startWithin, Callable<? extends T> task) {
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(startWithin, "startWithin");
    Objects.requireNonNull(task, "task");
    // fromFuture(supplier, false): a cancelled subscription cancels the lane's future
    return Mono.fromFuture(() -> lane.submit(label, startWithin, task::call), false);
  }
}
