package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Issue #24, "narrow parts": the workers, the pool, the lifecycle, health and the books get a
 * {@link LaneContext} (final references), not the lane — checked on the compiled classes, so a
 * part that reaches into {@link LaneExecutor} again fails here with the member it used.
 */
class LaneContextTest {
  private static final JavaClasses CORE =
      new ClassFileImporter().importPackages("dev.lanes");

  /** The parts, with their nested and anonymous classes (a worker's TaskRun, its gate callback). */
  private static final List<Class<?>> PARTS =
      List.of(Worker.class, WorkerPool.class, Lifecycle.class, LaneBooks.class, HealthMonitor.class);

  @Test
  void thePartsReachTheLaneOnlyThroughTheirContext() {
    Set<String> reached = new TreeSet<>();
    for (JavaClass c : CORE) {
      if (!isPart(c)) {
        continue;
      }
      for (JavaAccess<?> a : c.getAccessesFromSelf()) {
        if (a.getTargetOwner().isEquivalentTo(LaneExecutor.class) && !allowed(c, a)) {
          reached.add(c.getSimpleName() + " → LaneExecutor." + a.getTarget().getName());
        }
      }
    }
    assertThat(reached).as("members of LaneExecutor used by the parts").isEmpty();
  }

  @Test
  void theContextHoldsFinalReferencesOnly() {
    JavaClass ctx = CORE.get(LaneContext.class);
    assertThat(ctx.getFields()).isNotEmpty();
    ctx.getFields().forEach(f -> assertThat(f.getModifiers())
        .as("LaneContext.%s", f.getName())
        .contains(com.tngtech.archunit.core.domain.JavaModifier.FINAL));
  }

  @Test
  void theImporterSeesTheAccessesTheRuleJudges() {
    // The check itself is not vacuous: the health thread's registry reads LaneExecutor.ctx, an
    // access the importer must see (the rule allows that one member and reports any other).
    JavaClass health = CORE.get(HealthMonitor.class);
    long registryReads = health.getAccessesFromSelf().stream()
        .filter(a -> a.getTargetOwner().isEquivalentTo(LaneExecutor.class))
        .count();
    assertThat(registryReads).as("HealthMonitor's registry reads of LaneExecutor.ctx").isPositive();
  }

  private static boolean isPart(JavaClass c) {
    for (Class<?> part : PARTS) {
      if (c.isEquivalentTo(part) || c.getName().startsWith(part.getName() + "$")) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a part may do with the lane: the health thread's process-wide registry holds lanes
   * (weakly) and reaches each one's parts through its {@code ctx}; nothing else.
   */
  private static boolean allowed(JavaClass c, JavaAccess<?> a) {
    return c.getName().startsWith(HealthMonitor.class.getName()) && a.getTarget().getName().equals("ctx");
  }
}
