package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The lane's parts never name the lane: only the public API that makes a lane ({@link Lane}'s
 * factories, {@link LaneBuilder#build}) and the lane itself use {@link LaneExecutor}; a part gets
 * its collaborators in its constructor and tells the lane what it must through {@link
 * LaneContext.Upcalls}. Checked on the compiled classes, so a part that reaches into the lane
 * again fails here with the dependency it made.
 */
class LaneContextTest {
  private static final JavaClasses CORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.lanes");

  /** The files that may use the lane's implementation. */
  private static final Set<Class<?>> MAY_NAME_THE_LANE =
      Set.of(LaneExecutor.class, Lane.class, LaneBuilder.class);

  @Test
  void onlyTheLaneAndWhatBuildsItNameTheLane() {
    assertThat(usersOfTheLane()).as("classes that depend on LaneExecutor")
        .allSatisfy(user -> assertThat(MAY_NAME_THE_LANE.stream()
            .anyMatch(c -> user.equals(c.getName()) || user.startsWith(c.getName() + "$")))
            .as("%s may not name LaneExecutor", user).isTrue());
  }

  @Test
  void theRuleSeesTheDependenciesItJudges() {
    // Not vacuous: the builder's build() constructs the lane, a dependency the importer must see.
    assertThat(usersOfTheLane()).contains(LaneBuilder.class.getName());
  }

  @Test
  void theContextHoldsFinalReferencesOnly() {
    JavaClass ctx = CORE.get(LaneContext.class);
    assertThat(ctx.getFields()).isNotEmpty();
    ctx.getFields().forEach(f -> assertThat(f.getModifiers())
        .as("LaneContext.%s", f.getName())
        .contains(JavaModifier.FINAL));
  }

  /** The parts with verbs of their own, above the context and the ring. */
  private static final Set<Class<?>> PARTS = Set.of(LaneExecutor.class, HealthMonitor.class,
      Worker.class, Lifecycle.class, WorkerPool.class, LaneBooks.class, LaneContext.class);

  @Test
  void theDeadlockAnalysisNamesNoPartOfALane() {
    // It reads each lane as its own Deadlocks.Watched, which the health monitor implements.
    assertThat(partsNamedBy(Deadlocks.class)).isEmpty();
  }

  @Test
  void thePoolNamesTheBooksOnlyThroughItsPort() {
    assertThat(partsNamedBy(WorkerPool.class)).containsExactly(LaneContext.class.getName());
  }

  /** The {@link #PARTS} that the file of {@code file} (nested classes included) depends on. */
  private static Set<String> partsNamedBy(Class<?> file) {
    Set<String> named = new TreeSet<>();
    for (JavaClass c : CORE) {
      if (!(c.getName().equals(file.getName()) || c.getName().startsWith(file.getName() + "$"))) {
        continue;
      }
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        for (Class<?> part : PARTS) {
          String target = d.getTargetClass().getName();
          if (part != file && (target.equals(part.getName())
              || target.startsWith(part.getName() + "$"))) {
            named.add(part.getName());
          }
        }
      }
    }
    return named;
  }

  private static Set<String> usersOfTheLane() {
    Set<String> users = new TreeSet<>();
    for (JavaClass c : CORE) {
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        if (d.getTargetClass().isEquivalentTo(LaneExecutor.class)) {
          users.add(c.getName());
        }
      }
    }
    return users;
  }
}
