package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LaneBuilder#reportPinning()} with a real pin on the running JDK: a task that sleeps in a
 * class initializer pins its carrier (a virtual thread cannot unmount under a class initializer,
 * JDK 25 included), and the lane names the label and the initializer; a lane beside it whose
 * tasks sleep without pinning shows none.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PinningTest {
  private static final long SLEEP_MS = 120;

  @Test
  void aLaneWhoseTaskPinsNamesLabelAndSiteAndOneThatDoesNotShowsNone() throws Exception {
    try (Lane pinning = Lane.virtual("pin-tariffs", 2).reportPinning().build();
        Lane sleeping = Lane.virtual("pin-sleepers", 2).reportPinning().build()) {
      CompletableFuture<Void> parked = sleeping.submit("parks", () -> {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150));
      });
      pinning.submit("load-tariffs",
          () -> dev.lanes.testkit.Pins.sleepInClassInitializer(Duration.ofMillis(SLEEP_MS))).get();
      parked.get();
      Awaitility.await().atMost(Duration.ofSeconds(60))
          .until(() -> pinning.stats().pinning().count() >= 1);
      Pinning p = pinning.stats().pinning();
      assertThat(p.reported()).isTrue();
      assertThat(p.count()).isEqualTo(1);
      assertThat(p.longestNanos()).isEqualTo(p.totalNanos())
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SLEEP_MS / 2));
      assertThat(p.sites()).singleElement().satisfies(s -> {
        assertThat(s.label()).isEqualTo("load-tariffs");
        assertThat(s.frame()).contains("dev.lanes.testkit.PinSleeper.<clinit>");
        assertThat(s.reason()).contains("<clinit>");
        assertThat(s.count()).isEqualTo(1);
      });
      // The sleepers' lane: its tasks parked 150 ms without pinning; their events were flushed
      // with the pin's (the same stream), so none came for them.
      assertThat(sleeping.stats().pinning().count()).isZero();
      assertThat(sleeping.stats().pinning().reported()).isTrue();
      assertThat(Lanes.table(java.util.List.of(pinning.stats(), sleeping.stats())))
          .contains("pin-tariffs pinned its carrier 1 time for ")
          .contains("PinSleeper.<clinit>", "(label \"load-tariffs\")")
          .doesNotContain("pin-sleepers pinned");
    }
  }

  @Test
  void aLaneThatDoesNotReportPinningSaysSoAndPlatformLanesRefuseIt() {
    try (Lane plain = Lane.virtual("pin-off", 1).build()) {
      assertThat(plain.stats().pinning()).isEqualTo(Pinning.NOT_REPORTED);
    }
    assertThatThrownBy(() -> Lane.blocking("pin-platform", 1).reportPinning())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lane \"pin-platform\"")
        .hasMessageContaining("reportPinning() is for virtual lanes");
  }
}
