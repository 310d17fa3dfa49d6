package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * lanes-core's shape may not get worse: the figures of {@link CoreDrawing} stay at or under
 * today's, held as ceilings in {@link Ceiling}. Lower a ceiling when a change improves its figure;
 * issue #40's goals are ≤ 8 arrows running back up, ≤ 10 floors, and one circle: the lane, its
 * implementation and (because {@code Lane}'s factories return a builder whose {@code build} makes
 * the implementation) its builder. A failure prints the whole drawing.
 */
class CoreDrawingTest {

  /** Today's figures (DESIGN.md, "Measuring the core's shape"). */
  private static final class Ceiling {
    static final int ARROWS_BACK_UP = 2;
    static final int FLOORS = 10;
    static final int CIRCLES = 1;
    static final int LARGEST_CIRCLE = 3;
  }

  private static final CoreDrawing DRAWING = CoreDrawing.ofMainClasses();

  @Test
  void theShapeIsNoWorseThanTheCeilings() {
    String report = DRAWING.report();
    assertThat(DRAWING.backArrows()).as("arrows running back up%n%s", report)
        .hasSizeLessThanOrEqualTo(Ceiling.ARROWS_BACK_UP);
    assertThat(DRAWING.floors()).as("floors%n%s", report).isLessThanOrEqualTo(Ceiling.FLOORS);
    assertThat(DRAWING.circles()).as("circles%n%s", report)
        .hasSizeLessThanOrEqualTo(Ceiling.CIRCLES);
    assertThat(DRAWING.largestCircle()).as("files in the largest circle%n%s", report)
        .isLessThanOrEqualTo(Ceiling.LARGEST_CIRCLE);
  }

  @Test
  void eachSourceFileIsOneFileOfTheDrawing() throws IOException {
    try (Stream<Path> sources = Files.list(Path.of("src/main/java/dev/lanes"))) {
      assertThat(DRAWING.files()).containsExactlyInAnyOrderElementsOf(sources
          .map(p -> p.getFileName().toString().replace(".java", "")).toList());
    }
  }

  @Test
  void theLaneAndItsImplementationPointAtEachOther() {
    // Lane's `permits` is an arrow although ArchUnit does not record it as a dependency.
    assertThat(DRAWING.arrows()).containsKeys(new CoreDrawing.Arrow("Lane", "LaneExecutor"),
        new CoreDrawing.Arrow("LaneExecutor", "Lane"));
  }

  @Test
  void eachFileStandsJustAboveTheHighestFileItUsesByAnArrowThatRunsDown() {
    for (String file : DRAWING.files()) {
      int highest = DRAWING.arrows().keySet().stream()
          .filter(a -> a.from().equals(file) && !DRAWING.backArrows().contains(a))
          .mapToInt(a -> DRAWING.floorOf(a.to())).max().orElse(0);
      assertThat(DRAWING.floorOf(file)).as("floor of %s", file).isEqualTo(highest + 1);
    }
  }

  @Test
  void onlyArrowsInsideACircleRunBackUpAndEveryOtherArrowRunsDown() {
    for (CoreDrawing.Arrow a : DRAWING.arrows().keySet()) {
      boolean back = DRAWING.backArrows().contains(a);
      boolean inCircle = DRAWING.circles().stream()
          .anyMatch(c -> c.contains(a.from()) && c.contains(a.to()));
      if (back) {
        assertThat(inCircle).as("%s runs back up outside a circle", a).isTrue();
      } else {
        assertThat(DRAWING.floorOf(a.from())).as("%s runs down", a)
            .isGreaterThan(DRAWING.floorOf(a.to()));
      }
    }
  }
}
