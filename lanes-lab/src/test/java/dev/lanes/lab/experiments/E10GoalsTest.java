package dev.lanes.lab.experiments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lab.experiments.E10Adapt.CpuSignal;
import org.junit.jupiter.api.Test;

/**
 * E10's two replaced goals are judged from the run's figures, and each is missed when the figures
 * do not show what justifies it: the pure-CPU goal needs flat run time as the limit grew (else the
 * old goal stands), the E10d goal needs the converged limit within 25 % of Little's law.
 */
class E10GoalsTest {

  private static final double TOLERANCE = 0.2; // AdaptiveSettings.defaults().runTimeTolerance()

  private static CpuSignal signal(double meanAtStart, double medianAtStart, double meanAtPeak, double medianAtPeak) {
    return new CpuSignal(100, meanAtStart, medianAtStart, 40_000, meanAtPeak, medianAtPeak);
  }

  @Test
  void flatRunTimeAndTheControllerNoDearerThanTheLaneHeldAtItsPeakMeetThePureCpuGoal() {
    assertThat(E10Adapt.cpuGoalMissed(signal(35, 35, 39, 35.5), TOLERANCE, 0.95, 1.15)).isEmpty();
    assertThat(E10Adapt.cpuGoalMissed(signal(35, 35, 42, 35.5), TOLERANCE, 1.10, 1.15)).isEmpty(); // both at their bounds
  }

  @Test
  void runTimeThatRoseAsTheLimitGrewRejectsTheReplacementAndTheOldGoalStands() {
    String why = E10Adapt.cpuGoalMissed(signal(36, 35, 154, 36), TOLERANCE, 0.4, 1.9);
    assertThat(why).contains("rose 4.28×").contains("does not justify the replacement")
        .contains("the old goal").contains("1.90×").contains("the rise is in the tail");
    assertThat(E10Adapt.cpuGoalMissed(signal(35, 35, 70, 70), TOLERANCE, 1.0, 1.2))
        .contains("rose 2.00×").contains("the median too: 2.00×");
  }

  @Test
  void tooFewTasksAtTheStartLimitShowNothing() {
    CpuSignal few = new CpuSignal(E10Adapt.MIN_SIGNAL_TASKS - 1, 35, 35, 40_000, 35, 35);
    assertThat(E10Adapt.cpuGoalMissed(few, TOLERANCE, 1.0, 1.2)).contains("too few tasks");
    CpuSignal none = new CpuSignal(0, Double.NaN, Double.NaN, 40_000, 35, 35);
    assertThat(E10Adapt.cpuGoalMissed(none, TOLERANCE, 1.0, 1.2)).contains("too few tasks");
  }

  @Test
  void flatRunTimeButADearControllerMissesThePureCpuGoal() {
    assertThat(E10Adapt.cpuGoalMissed(signal(35, 35, 36, 35), TOLERANCE, 1.11, 1.2)).contains("the controller's own cost");
  }

  @Test
  void theConvergedLimitIsHeldToLittlesLawWithinAQuarterEitherWay() {
    assertThat(E10Adapt.littleGoalMissed(true, 15.9, 16.8)).isEmpty();
    assertThat(E10Adapt.littleGoalMissed(true, 20, 16)).isEmpty();
    assertThat(E10Adapt.littleGoalMissed(true, 10.5, 17.5)).contains("1.67×");
    assertThat(E10Adapt.littleGoalMissed(true, 22, 17.5)).contains("1.26×");
    assertThat(E10Adapt.littleGoalMissed(false, 16, 16)).contains("too few samples");
  }
}
