package dev.lanes.shares;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lane;
import dev.lanes.LaneGate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Bad settings get a message naming the shares, the setting, the bound and the value. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PrioritySharesBuilderTest {

  @Test
  void badSettingsAreRefusedWithTheSettingTheBoundAndTheValue() {
    assertThatThrownBy(() -> PriorityShares.builder(" ", 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("priority shares name must not be blank, was \" \"");
    assertThatThrownBy(() -> PriorityShares.builder("db", 0))
        .hasMessage("priority shares \"db\": total must be between 1 and 1000000, was 0");
    PriorityShares.Builder b = PriorityShares.builder("db", 10);
    assertThatThrownBy(() -> b.partition("checkout", 0))
        .hasMessage("priority shares \"db\": partition \"checkout\": share must be > 0 and ≤ 1, was 0.0");
    assertThatThrownBy(() -> b.partition("checkout", Double.NaN))
        .hasMessageContaining("share must be > 0 and ≤ 1, was NaN");
    assertThatThrownBy(() -> b.partition("", 0.5))
        .hasMessage("priority shares \"db\": partition name must not be blank, was \"\"");
    b.partition("checkout", 0.7);
    assertThatThrownBy(() -> b.partition("checkout", 0.1))
        .hasMessage("priority shares \"db\": partition \"checkout\" was already added (priority 0)");
    assertThatThrownBy(() -> b.partition("reports", 0.4))
        .hasMessage("priority shares \"db\": partition \"reports\": shares must sum to ≤ 1, would sum"
            + " to 1.1 (0.7 before, plus 0.4)");
    assertThatThrownBy(() -> b.lendAfterIdle(Duration.ofMillis(-1)))
        .hasMessage("priority shares \"db\": lendAfterIdle must be between 0 and PT1H, was PT-0.001S");
    assertThatThrownBy(() -> b.claimTimeout(Duration.ZERO))
        .hasMessage("priority shares \"db\": claimTimeout must be between 1 ms and 1 min, was PT0S");
    b.claimTimeout(Duration.ofMillis(20)); // the refused value above was not "given"
    assertThatThrownBy(() -> b.claimTimeout(Duration.ofMillis(30)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("priority shares \"db\": claimTimeout was already set to PT0.02S; cannot set it"
            + " to PT0.03S");
    assertThat(b.partition("reports", 0.3).build().claimTimeout()).isEqualTo(Duration.ofMillis(20));
  }

  @Test
  void theGuaranteesMustFitTheTotal() {
    assertThatThrownBy(() -> PriorityShares.builder("db", 10).build())
        .hasMessage("priority shares \"db\": at least one partition is required (partition(name, share))");
    // floor(0.3 × 2) = 0, raised to 1 each: 3 > 2.
    assertThatThrownBy(() -> PriorityShares.builder("db", 2).partition("a", 0.4)
            .partition("b", 0.3).partition("c", 0.3).build())
        .hasMessage("priority shares \"db\": the guaranteed permits (floor(share × total), at least 1"
            + " each) must sum to ≤ total 2, were 3 {a=1, b=1, c=1}; give a larger total or fewer"
            + " partitions");
  }

  @Test
  void guaranteesAreTheFloorOfShareTimesTotalAndAtLeastOne() {
    PriorityShares db = PriorityShares.builder("db", 10).partition("checkout", 0.75)
        .partition("reports", 0.05).build();
    assertThat(db.guaranteed("checkout")).isEqualTo(7);
    assertThat(db.guaranteed("reports")).isEqualTo(1);
    assertThat(db.partitions()).containsExactly("checkout", "reports");
    assertThat(db.lendAfterIdle()).isEqualTo(Duration.ofMillis(100));
    assertThat(db.claimTimeout()).isEqualTo(Duration.ofMillis(50));
    assertThat(db.recheckInterval()).isEqualTo(Duration.ofMillis(12).plusNanos(500_000));
    assertThatThrownBy(() -> db.gate("batch"))
        .hasMessage("priority shares \"db\": no partition \"batch\"; the partitions are [checkout, reports]");
    assertThatThrownBy(() -> db.stats().partition("batch"))
        .hasMessageContaining("has no partition \"batch\"");
    assertThat(db.gate("checkout")).isSameAs(db.gate("checkout"));
  }

  @Test
  void lanesBuildsOneGatedLanePerPartitionAndShutsDownWhatItBuiltIfOneFails() throws Exception {
    PriorityShares db = PriorityShares.builder("db", 4).partition("checkout", 0.5)
        .partition("reports", 0.5).build();
    Map<String, Lane> lanes = db.lanes(p -> Lane.virtual("db-" + p, 4).queueCapacity(10));
    try {
      assertThat(lanes.keySet()).containsExactly("checkout", "reports");
      assertThat(lanes.get("checkout").submit(() -> "ok").get(10, TimeUnit.SECONDS)).isEqualTo("ok");
      // (A second worker may have asked too, and given its pass back unused.)
      assertThat(db.stats().partition("checkout").granted()).isPositive();
      assertThat(db.stats().partition("reports").granted()).isZero();
    } finally {
      lanes.values().forEach(Lane::close);
    }

    List<Thread> threads = new CopyOnWriteArrayList<>();
    LaneGate other = ready -> null;
    assertThatThrownBy(() -> db.lanes(p -> {
      var b = Lane.blocking("db2-" + p, 2).threadFactory(r -> {
        Thread t = Thread.ofPlatform().name("db2-" + p).unstarted(r);
        threads.add(t);
        return t;
      });
      if (p.equals("reports")) {
        b.gate(other); // the template may not set a gate of its own
      }
      return b;
    })).isInstanceOf(IllegalStateException.class).hasMessageContaining("gate was already set");
    assertThat(threads).isNotEmpty(); // the checkout lane's, built before reports failed
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(10)); // it was shut down: its threads end
      assertThat(t.isAlive()).as(t.getName()).isFalse();
    }
  }
}
