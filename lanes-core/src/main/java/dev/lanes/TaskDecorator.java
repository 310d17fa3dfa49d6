package dev.lanes;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Carries context from the submitting thread to the thread that runs a task: {@link #decorate} is
 * called on the submitting thread, and the {@code Runnable} it returns runs on the lane's thread.
 * Use it for MDC, trace ids and thread-locals: capture on submit, restore around the run, clear
 * after.
 */
@FunctionalInterface
public interface TaskDecorator {

  /** The decorator that changes nothing. */
  TaskDecorator NONE = task -> task;

  /**
   * Wraps one task. Called on the submitting thread, once per task, before the lane accepts it:
   * what it throws reaches the submitter and nothing is accepted.
   *
   * @param task the task to wrap: the submitted task inside lanes' timing wrapper (never null)
   * @return the {@code Runnable} the lane's thread runs in its place; it must call {@code
   *     task.run()}, or the task ends {@link TaskOutcome#FAILED}. Null is refused with a {@link
   *     NullPointerException} to the submitter, and nothing is accepted
   */
  Runnable decorate(Runnable task);

  /**
   * Composes two decorators: this one outside, {@code inner} closer to the task. Both are called on
   * the submitting thread, {@code inner} first.
   *
   * @param inner the decorator to apply closer to the task
   * @return the composed decorator; {@code inner} itself if this is {@link #NONE}, this one if
   *     {@code inner} is
   * @throws NullPointerException if {@code inner} is null
   */
  default TaskDecorator andThen(TaskDecorator inner) {
    Objects.requireNonNull(inner, "inner");
    if (this == NONE) {
      return inner;
    }
    if (inner == NONE) {
      return this;
    }
    return task -> decorate(inner.decorate(task));
  }

  /**
   * Copies the submitter's values of {@code locals} to the running thread for the task's run, and
   * restores the running thread's own values afterwards, so nothing leaks into the next task.
   *
   * @param locals the thread-locals to carry (none gives a decorator that carries nothing)
   * @return a decorator that captures the locals' values when a task is submitted
   * @throws NullPointerException if {@code locals} or one of them is null
   */
  static TaskDecorator threadLocals(ThreadLocal<?>... locals) {
    List<ThreadLocal<?>> all = List.copyOf(Arrays.asList(locals));
    return task -> {
      Object[] captured = new Object[all.size()];
      for (int i = 0; i < captured.length; i++) {
        captured[i] = all.get(i).get();
      }
      return () -> {
        Object[] previous = new Object[captured.length];
        for (int i = 0; i < captured.length; i++) {
          previous[i] = all.get(i).get();
          set(all.get(i), captured[i]);
        }
        try {
          task.run();
        } finally {
          for (int i = 0; i < captured.length; i++) {
            if (previous[i] == null) {
              all.get(i).remove();
            } else {
              set(all.get(i), previous[i]);
            }
          }
        }
      };
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> void set(ThreadLocal<T> local, Object value) {
    local.set((T) value);
  }
}
