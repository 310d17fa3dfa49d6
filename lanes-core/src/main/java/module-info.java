/**
 * lanes: named, bounded executors that measure every task's queue wait, run time and CPU time.
 * Start from {@link dev.lanes.Lane}.
 */
module dev.lanes {
  requires java.management;
  requires jdk.jfr;
  requires HdrHistogram;

  exports dev.lanes;
}
