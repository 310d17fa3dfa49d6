package dev.lanes;

import java.util.concurrent.ThreadFactory;

/**
 * What a lane is built from, every value checked by {@link LaneBuilder}: what stays fixed for the
 * lane's life, and the first {@link Settings} (which a live change may replace).
 *
 * @param threadFactory the factory given, or the default one for the lane's kind
 * @param exceptionHandler told of what an {@code execute} task throws; null for the default
 * @param cpuSampleNanos -1 off, 0 every task, else the least time between one worker's readings
 * @param reportPinning attribute the JDK's pinned-carrier events to this lane (virtual lanes)
 */
record LaneSpec(String name, LaneKind kind, Ticker ticker, LaneGate gate, Settings settings,
    ThreadFactory threadFactory, Thread.UncaughtExceptionHandler exceptionHandler,
    long statsIntervalNanos, long cpuSampleNanos, boolean reportPinning) {}
