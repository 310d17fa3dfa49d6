package dev.lanes;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * lanes' JDK Flight Recorder events. During a recording, a task event is committed only when the
 * task ran at least its threshold (20 ms unless the recording's settings say otherwise, e.g. {@code
 * jfr configure} or {@code -XX:StartFlightRecording:settings=...} with {@code
 * dev.lanes.Task#threshold=0 ms}).
 *
 * <p>Loaded lazily: the first event object made in a JVM loads and registers JFR's event machinery
 * (over a hundred {@code jdk.jfr} classes, about 200 ms here), so no event object is made until
 * Flight Recorder is initialised. Every way of recording (a {@code Recording}, {@code
 * -XX:StartFlightRecording}, {@code jcmd JFR.start}, a {@code RecordingStream}) initialises it
 * first, so while it is not initialised no recording runs and no event could be committed:
 * skipping them loses nothing. {@link FlightRecorder#isInitialized()} is a volatile read; the
 * check costs that per task. Once initialised, events are made as usual (the JIT removes an event
 * that is never enabled).
 */
final class LaneEvents {
  private LaneEvents() {}

  /**
   * A task event, begun, or null while Flight Recorder is not initialised in this JVM (then no
   * recording can be running). The caller ends it after the task and commits it if it should.
   */
  static TaskEvent beginTask() {
    if (!FlightRecorder.isInitialized()) {
      return null;
    }
    TaskEvent event = new TaskEvent();
    event.begin();
    return event;
  }

  @Name("dev.lanes.Task")
  @Label("Lane Task")
  @Category({"lanes"})
  @Description("A task ran on a lane; the event's duration is its run time")
  @Threshold("20 ms")
  @StackTrace(false)
  static final class TaskEvent extends Event {
    @Label("Lane")
    String lane;

    @Label("Label")
    String label;

    @Label("Task Id")
    long taskId;

    @Label("Queue Wait")
    @Timespan(Timespan.NANOSECONDS)
    long queueWait;

    @Label("Run Time")
    @Timespan(Timespan.NANOSECONDS)
    long runTime;

    @Label("CPU Time")
    @Description("CPU time of the running thread during the task; -1 when not measured")
    @Timespan(Timespan.NANOSECONDS)
    long cpuTime;

    @Label("Outcome")
    String outcome;

    /** Fills in the task's figures and commits the event. */
    void commit(String lane, String label, long taskId, long queueWait, long runTime,
        long cpuTime, String outcome) {
      this.lane = lane;
      this.label = label;
      this.taskId = taskId;
      this.queueWait = queueWait;
      this.runTime = runTime;
      this.cpuTime = cpuTime;
      this.outcome = outcome;
      commit();
    }
  }

  @Name("dev.lanes.HealthTransition")
  @Label("Lane Health Transition")
  @Category({"lanes"})
  @Description("A lane's health state changed (OK, SATURATED, REJECTING, DEADLOCKED)")
  @StackTrace(false)
  static final class HealthTransitionEvent extends Event {
    @Label("Lane")
    String lane;

    @Label("From")
    String from;

    @Label("To")
    String to;

    @Label("Figures")
    String figures;

    @Label("Diagnostic")
    String diagnostic;
  }

  @Name("dev.lanes.SettingsChange")
  @Label("Lane Settings Change")
  @Category({"lanes"})
  @Description("A running lane's settings were changed (Lane.change().apply())")
  @StackTrace(true)
  static final class SettingsChangeEvent extends Event {
    @Label("Lane")
    String lane;

    @Label("Change")
    String change;
  }

  @Name("dev.lanes.Deadlock")
  @Label("Lane Starvation Deadlock")
  @Category({"lanes"})
  @Description("Every worker of a lane waits on work queued behind it in the same lane")
  @StackTrace(false)
  static final class DeadlockEvent extends Event {
    @Label("Lane")
    String lane;

    @Label("Workers")
    int workers;

    @Label("Queued")
    int queued;

    @Label("Diagnostic")
    String diagnostic;
  }

  static void healthTransition(HealthEvent e) {
    if (!FlightRecorder.isInitialized()) {
      return; // no recording can be running: do not load JFR's event machinery for nothing
    }
    HealthTransitionEvent ev = new HealthTransitionEvent();
    if (ev.isEnabled()) {
      ev.lane = e.lane();
      ev.from = e.from().name();
      ev.to = e.to().name();
      ev.figures = e.figures().toString();
      ev.diagnostic = e.diagnostic();
      ev.commit();
    }
    if (e.to() == LaneHealth.DEADLOCKED) {
      DeadlockEvent d = new DeadlockEvent();
      if (d.isEnabled()) {
        d.lane = e.lane();
        d.workers = e.figures().getOrDefault("workers", 0.0).intValue();
        d.queued = e.figures().getOrDefault("queued", 0.0).intValue();
        d.diagnostic = e.diagnostic();
        d.commit();
      }
    }
  }

  static void settingsChange(SettingsChange c) {
    if (!FlightRecorder.isInitialized()) {
      return; // no recording can be running
    }
    SettingsChangeEvent ev = new SettingsChangeEvent();
    if (ev.isEnabled()) {
      ev.lane = c.lane();
      ev.change = c.describe();
      ev.commit();
    }
  }
}
