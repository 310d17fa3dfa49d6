package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;

/**
 * The hot objects' field layouts, as this JVM lays them out (JOL): fields one thread writes often
 * share no cache line, nor the line beside it (adjacent-line prefetch pairs 64-byte lines), with
 * fields another thread writes or reads on its own hot path, the object's header (locking, hashing)
 * or the objects allocated before and after it. "Apart" below means at least {@link #APART} bytes
 * between the nearest bytes of the two.
 */
class LayoutTest {
  static final int APART = 128;

  @Test
  void aWorkersOwnFieldsAreApartFromEverythingElse() {
    // Written by the worker on every task (or every wait, gate visit); read racily by others.
    assertApart(Worker.class, Set.of("runningTask", "current", "lastCpu", "nextCpuSampleAt",
        "pass", "gateFailures", "gateBackOffNanos", "atGate", "waitingOn", "waitTimed",
        "holdsPermit", "retired", "tally"));
  }

  @Test
  void aTakesScratchIsApartFromItsNeighbours() {
    // Written by its worker on every take.
    assertApart(Taken.class, Set.of("home", "stamp", "position", "cursor", "last", "streak"));
  }

  @Test
  void theRingsIdleListIsApartFromWhatEveryAppendAndPollReads() {
    // Written at every park and wake; the rest is read on every append and poll.
    assertApart(TaskRing.class, Set.of("idleOldest", "idleNewest"));
  }

  @Test
  void aTaskRunsFieldsAreApartFromItsNeighbours() {
    // Written by its worker (or caller) through every step of every task.
    assertApart(Worker.TaskRun.class, Set.of("start", "end", "cpuStart", "cpu",
        "callerInterrupted", "notRun", "decoratorFailed", "otherCodeRan", "ctx", "books",
        "admission", "pool", "w", "me", "t", "f", "timed", "event", "failure", "outcome",
        "listeners"));
  }

  @Test
  void aShardsHeadIsApartFromItsTail() {
    // Consumers CAS the head, producers the tail.
    assertApart(RingShard.Positions.class, Set.of("head"));
    assertApart(RingShard.Positions.class, Set.of("tail"));
  }

  @Test
  void theRuleSeesACrowdedLayout() {
    // Not vacuous: a class whose fields sit together fails it.
    assertThat(crowding(Crowded.class, Set.of("hot"))).isNotEmpty();
  }

  @SuppressWarnings("unused")
  static final class Crowded {
    long hot;
    long cold;
  }

  private static void assertApart(Class<?> c, Set<String> own) {
    assertThat(crowding(c, own)).as("%s", ClassLayout.parseClass(c).toPrintable()).isEmpty();
  }

  /**
   * What sits closer than {@link #APART} to one of {@code own}'s fields: other fields (padding
   * fields, named p00, q00 and so on, excepted), the header, the object's end.
   */
  static List<String> crowding(Class<?> c, Set<String> own) {
    ClassLayout layout = ClassLayout.parseClass(c);
    List<FieldLayout> mine = new ArrayList<>();
    List<long[]> others = new ArrayList<>(); // [start, end) of each other thing
    List<String> names = new ArrayList<>();
    others.add(new long[] {0, layout.headerSize()});
    names.add("the header");
    others.add(new long[] {layout.instanceSize(), layout.instanceSize() + 1});
    names.add("the next object");
    for (FieldLayout f : layout.fields()) {
      if (own.contains(f.name())) {
        mine.add(f);
      } else if (!f.name().matches("[a-z]\\d\\d")) {
        others.add(new long[] {f.offset(), f.offset() + f.size()});
        names.add(f.name());
      }
    }
    assertThat(mine.stream().map(FieldLayout::name)).as("fields of %s", c.getSimpleName())
        .containsExactlyInAnyOrderElementsOf(own);
    List<String> crowding = new ArrayList<>();
    for (FieldLayout f : mine) {
      long start = f.offset();
      long end = f.offset() + f.size();
      for (int i = 0; i < others.size(); i++) {
        long[] o = others.get(i);
        long gap = o[0] >= end ? o[0] - end : start - o[1];
        if (gap < APART) {
          crowding.add(f.name() + " @" + start + " is " + gap + " bytes from " + names.get(i)
              + " @" + o[0]);
        }
      }
    }
    return crowding;
  }
}
