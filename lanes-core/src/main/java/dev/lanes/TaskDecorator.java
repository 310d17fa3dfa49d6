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

  Runnable decorate(Runnable task);

  /** This decorator, then {@code inner} closer to the task. */
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
