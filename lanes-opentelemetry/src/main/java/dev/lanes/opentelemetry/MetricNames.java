package dev.lanes.opentelemetry;

/**
 * Which names a {@link LanesTelemetry} publishes the lanes' figures under.
 *
 * <p>{@link #JVM_EXECUTOR} follows OpenTelemetry's {@code jvm.executor.*} metric conventions as
 * proposed in open-telemetry/semantic-conventions#3970 (status "development", not stable: a name
 * may still change there before it is merged).
 */
public enum MetricNames {

  /** Every figure under lanes' own names ({@code lanes.*}), as lanes-micrometer publishes them. */
  LANES,

  /**
   * The convention's {@code jvm.executor.*} names for the figures it defines (threads active and
   * idle, thread limit, queue size and capacity, tasks completed and rejected), and lanes' own
   * names for what it lacks: queue wait, run and CPU time, the oldest waiting task, tasks by
   * outcome, health and saturation.
   */
  JVM_EXECUTOR
}
