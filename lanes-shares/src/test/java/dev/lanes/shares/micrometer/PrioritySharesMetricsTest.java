package dev.lanes.shares.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.shares.PriorityShares;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The meters of a real PriorityShares, read through a Prometheus scrape, equal its own books. */
class PrioritySharesMetricsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Pattern SAMPLE = Pattern.compile("^(lanes_shares_[a-z_]+)\\{([^}]*)}\\s+(\\S+)$");

  @Test
  void aScrapeShowsEachPartitionsBooks() throws Exception {
    PriorityShares db = PriorityShares.builder("db", 10).partition("checkout", 0.7).partition("reports", 0.3)
        .build();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PrioritySharesMetrics(db).bindTo(registry);
    Map<String, Lane> lanes = db.lanes(p -> Lane.virtual("db-" + p, 10));
    CountDownLatch release = new CountDownLatch(1);
    try {
      // checkout was never active, so lendable: reports takes its 3 and borrows 2 more.
      for (int i = 0; i < 5; i++) {
        lanes.get("reports").submit(() -> hold(release));
      }
      await().atMost(PATIENCE).until(() -> db.stats().partition("reports").held() == 5);
      lanes.get("checkout").submit(() -> hold(release));
      await().atMost(PATIENCE).until(() -> db.stats().partition("checkout").held() == 1);

      // Passes granted and borrows count a pass a worker took and gave back unused (it found the
      // queue empty: LaneGate's contract), so they are compared with the shares' own books.
      Map<String, Double> scraped = scrape(registry);
      assertThat(db.stats().partition("reports").granted()).isGreaterThanOrEqualTo(5);
      assertThat(scraped).containsEntry("lanes_shares_permits{share=db}", 10.0)
          .containsEntry("lanes_shares_permits_free{share=db}", 4.0)
          .containsEntry("lanes_shares_guarantee_breaches_total{share=db}", 0.0)
          .containsEntry("lanes_shares_partition_guaranteed{partition=checkout,share=db}", 7.0)
          .containsEntry("lanes_shares_partition_guaranteed{partition=reports,share=db}", 3.0)
          .containsEntry("lanes_shares_partition_held{partition=reports,share=db}", 5.0)
          .containsEntry("lanes_shares_partition_borrowed{partition=reports,share=db}", 2.0)
          .containsEntry("lanes_shares_partition_held{partition=checkout,share=db}", 1.0)
          .containsEntry("lanes_shares_partition_borrowed{partition=checkout,share=db}", 0.0)
          .containsEntry("lanes_shares_partition_lendable{partition=checkout,share=db}", 0.0)
          .containsEntry("lanes_shares_partition_granted_total{partition=reports,share=db}", (double) db.stats().partition("reports").granted())
          .containsEntry("lanes_shares_partition_borrows_total{partition=reports,share=db}", (double) db.stats().partition("reports").borrowedTotal())
          .containsEntry("lanes_shares_partition_granted_total{partition=checkout,share=db}", (double) db.stats().partition("checkout").granted())
          .containsKeys("lanes_shares_partition_waiting{partition=checkout,share=db}",
              "lanes_shares_partition_reserved{partition=reports,share=db}",
              "lanes_shares_partition_releases_owed_total{partition=checkout,share=db}",
              "lanes_shares_partition_releases_owed_granted_total{partition=checkout,share=db}",
              "lanes_shares_partition_reservations_expired_total{partition=reports,share=db}");
    } finally {
      release.countDown();
      lanes.values().forEach(Lane::close);
    }
    await().atMost(PATIENCE).until(() -> db.stats().held() == 0);
    assertThat(scrape(registry)).containsEntry("lanes_shares_permits_free{share=db}", 10.0)
        .containsEntry("lanes_shares_partition_held{partition=reports,share=db}", 0.0);
  }

  /** Every lanes_shares_ sample of the scrape, keyed by name and sorted labels. */
  private static Map<String, Double> scrape(PrometheusMeterRegistry registry) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : registry.scrape().split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (m.matches()) {
        String labels = m.group(2).replace("\"", "");
        samples.put(m.group(1) + "{" + labels + "}", Double.parseDouble(m.group(3)));
      }
    }
    return samples;
  }

  private static void hold(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
