package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Scrapes a Prometheus registry and parses the text exposition for every lanes meter. */
class PrometheusScrapeTest {

  /** One sample line: name, labels, value (the text format's comment lines are skipped). */
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+(\\S+)(\\s+\\d+)?$");

  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** The Prometheus names Micrometer's naming convention gives the lanes meters. */
  static final String[] PROMETHEUS_NAMES = {
    "lanes_task_wait_seconds_count",
    "lanes_task_wait_seconds_sum",
    "lanes_task_wait_seconds_max",
    "lanes_task_run_seconds_count",
    "lanes_task_run_seconds_sum",
    "lanes_task_run_seconds_max",
    "lanes_task_cpu_seconds_count",
    "lanes_task_cpu_seconds_sum",
    "lanes_task_cpu_seconds_max",
    "lanes_tasks_total",
    "lanes_queue_size_tasks",
    "lanes_queue_oldest_seconds",
    "lanes_running_tasks",
    "lanes_workers_threads",
    "lanes_concurrency_tasks",
    "lanes_capacity_remaining_tasks",
    "lanes_saturated_lanes",
    "lanes_saturated_time_seconds_total",
    "lanes_health_lanes",
    "lanes_between_tasks_time_seconds_total",
  };

  private static final int TASKS = 20;

  @Test
  void scrapeHasEveryNameForEveryLaneAndParsesCleanly() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (Lanes lanes =
            Lanes.of(
                Lane.blocking("db", 2).cpuTimeEveryTask(),
                Lane.virtual("partner-api", 5));
        LanesMetrics metrics = LanesMetrics.builder(lanes).statsMaxAge(Duration.ZERO).build()) {
      metrics.bindTo(registry);
      for (int i = 0; i < TASKS; i++) {
        lanes.lane("db").submit(() -> {}).get(30, TimeUnit.SECONDS);
      }
      await().atMost(Duration.ofSeconds(30))
          .until(() -> registry.get("lanes.task.run").tag("lane", "db").timer().count() == TASKS);

      String text = registry.scrape();
      Map<String, Map<String, Double>> byName = new HashMap<>();
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        Matcher m = SAMPLE.matcher(line);
        assertThat(m.matches()).as("a valid sample line: %s", line).isTrue();
        Map<String, String> labels = new HashMap<>();
        if (m.group(3) != null) {
          Matcher l = LABEL.matcher(m.group(3));
          while (l.find()) {
            labels.put(l.group(1), l.group(2));
          }
        }
        double value = Double.parseDouble(m.group(4));
        String key = labels.get("lane") + (labels.containsKey("outcome") ? "/" + labels.get("outcome") : "");
        byName.computeIfAbsent(m.group(1), k -> new HashMap<>()).put(key, value);
      }
      for (String name : PROMETHEUS_NAMES) {
        assertThat(byName).as("scrape has %s", name).containsKey(name);
        assertThat(byName.get(name).keySet())
            .as("%s for both lanes", name)
            .anyMatch(k -> k.startsWith("db"))
            .anyMatch(k -> k.startsWith("partner-api"));
      }
      assertThat(byName.get("lanes_tasks_total")).containsEntry("db/completed", (double) TASKS);
      assertThat(byName.get("lanes_task_run_seconds_count")).containsEntry("db", (double) TASKS);
      assertThat(byName.get("lanes_task_cpu_seconds_count")).containsEntry("db", (double) TASKS);
      assertThat(byName.get("lanes_workers_threads")).containsEntry("db", 2.0);
      assertThat(byName.get("lanes_concurrency_tasks"))
          .containsEntry("db", 2.0)
          .containsEntry("partner-api", 5.0);
      assertThat(byName.get("lanes_tasks_total")).containsEntry("db/queue_full", 0.0);
      // Every family has HELP and TYPE lines (the descriptions).
      assertThat(text).contains("# HELP lanes_task_wait_seconds ").contains("# TYPE lanes_tasks_total counter");
    }
  }

  @Test
  void percentileHistogramPublishesBucketsForWaitRunAndCpu() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (Lane lane = Lane.blocking("db", 2).cpuTimeEveryTask().build();
        LanesMetrics with = LanesMetrics.builder(lane).percentileHistogram(true).build()) {
      with.bindTo(registry);
      lane.submit(() -> {}).get(30, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(30))
          .until(() -> registry.get("lanes.task.run").tag("lane", "db").timer().count() == 1);
      String text = registry.scrape();
      for (String timer : new String[] {"wait", "run", "cpu"}) {
        // The +Inf bucket counts every sample: the one task.
        assertThat(text).containsPattern(
            "(?m)^lanes_task_" + timer + "_seconds_bucket\\{[^}]*le=\"\\+Inf\"[^}]*} 1(\\.0)?$");
      }
    }
    PrometheusMeterRegistry plain = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (Lane lane = Lane.blocking("db", 2).build();
        LanesMetrics without = LanesMetrics.of(lane)) {
      without.bindTo(plain);
      assertThat(plain.scrape()).contains("lanes_task_wait_seconds_count").doesNotContain("_bucket");
    }
  }
}
