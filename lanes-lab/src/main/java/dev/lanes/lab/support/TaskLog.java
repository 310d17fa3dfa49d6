package dev.lanes.lab.support;

import dev.lanes.Lane;
import dev.lanes.TaskRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Collects the {@link TaskRecord}s of the lanes an experiment follows. Records arrive on the
 * lanes' threads into a concurrent queue; {@link #records()} is read after the lanes are closed
 * (close waits for every task, so every record has arrived).
 */
public final class TaskLog {

  private final ConcurrentLinkedQueue<TaskRecord> records = new ConcurrentLinkedQueue<>();

  /** Follows {@code lane} and returns it. */
  public Lane follow(Lane lane) {
    lane.onTask(records::add);
    return lane;
  }

  public List<TaskRecord> records() {
    return new ArrayList<>(records);
  }

  /** The records of one lane. */
  public List<TaskRecord> of(String lane) {
    return records.stream().filter(r -> r.lane().equals(lane)).toList();
  }
}
