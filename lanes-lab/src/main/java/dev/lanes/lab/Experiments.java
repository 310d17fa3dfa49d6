package dev.lanes.lab;

import dev.lanes.lab.experiments.E10Adapt;
import dev.lanes.lab.experiments.E11Stages;
import dev.lanes.lab.experiments.E12FanOut;
import dev.lanes.lab.experiments.E1PoolOrThreadPerTask;
import dev.lanes.lab.experiments.E2ThreadsForCpuWork;
import dev.lanes.lab.experiments.E3UnboundedQueue;
import dev.lanes.lab.experiments.E4OverflowPolicies;
import dev.lanes.lab.experiments.E5SharedPoolOrLanes;
import dev.lanes.lab.experiments.E6VirtualThreadCaps;
import dev.lanes.lab.experiments.E7NestedSubmission;
import dev.lanes.lab.experiments.E8NoisyNeighbour;
import dev.lanes.lab.experiments.E9SizingAdvice;
import dev.lanes.lab.experiments.E13SharedCapAcrossJvms;
import dev.lanes.lab.experiments.E14QueuesYouDoNotOwn;
import java.util.List;

/** The lab's experiments, in the order they run. */
public final class Experiments {

  private Experiments() {}

  public static List<Experiment> all() {
    return List.of(
        new E1PoolOrThreadPerTask(),
        new E2ThreadsForCpuWork(),
        new E3UnboundedQueue(),
        new E4OverflowPolicies(),
        new E5SharedPoolOrLanes(),
        new E6VirtualThreadCaps(),
        new E7NestedSubmission(),
        new E8NoisyNeighbour(),
        new E9SizingAdvice(),
        new E10Adapt(),
        new E11Stages(),
        new E12FanOut(),
        new E13SharedCapAcrossJvms(),
        new E14QueuesYouDoNotOwn());
  }
}
