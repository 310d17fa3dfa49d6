package dev.lanes.serve.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.adapt.AdaptiveLimit;
import dev.lanes.adapt.AdaptiveSettings;
import dev.lanes.redis.SharedCap;
import dev.lanes.redis.harness.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Grafana dashboard in {@code dashboards/lanes-grafana.json} against a real Prometheus
 * scraping the Spring Boot demo every second: every target of every panel, with the template
 * variables filled in as Grafana would, returns at least one series carrying the labels its legend
 * names. A panel added to the file later is checked the same way without a change here.
 *
 * <p>The demo runs on Tomcat in lanes mode with lane {@code slow} cut to one thread and a queue of
 * two (so {@code /slow} requests saturate it and are refused), plus what the demo cannot have on
 * its own: lane {@code partner} gated by a lanes-redis {@link SharedCap} on a private Redis, and
 * lane {@code adaptive} driven by a lanes-adapt {@link AdaptiveLimit}; the starter binds their
 * meters.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GrafanaDashboardTest {

  static final Path DASHBOARD = Path.of("..", "dashboards", "lanes-grafana.json").toAbsolutePath().normalize();

  /** What Grafana's {@code $__rate_interval} is given here: at least four 1 s scrapes. */
  private static final String RATE_INTERVAL = "30s";
  private static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(1);
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)");

  private static final int SLOW_REQUESTS = 12;
  private static final int SLOW_MILLIS = 1000;
  private static final int GATED_TASKS = 10;
  private static final int ADAPTIVE_TASKS = 500;
  /** Longer than a scrape interval, so that a scrape sees reports holding the permits it borrowed. */
  private static final int REPORT_MILLIS = 2500;

  private static final JsonMapper json = JsonMapper.builder().build();
  private static final HttpClient http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();

  private static RedisServerProcess redis;
  private static ConfigurableApplicationContext app;
  private static PrometheusProcess prometheus;

  /**
   * The demo's additions for this test: beans Spring finds through this source (not scanned). The
   * starter meters both: every SharedCap bean and every AdaptiveLimit bean.
   */
  static class GatedAndAdaptiveLanes {
    @Bean(destroyMethod = "close")
    SharedCap partnerCap() {
      return SharedCap.builder("partner", redis.uri()).cap(2).build();
    }

    @Bean(destroyMethod = "close")
    AdaptiveLimit adaptiveLimit(Lanes lanes) {
      return AdaptiveLimit.attach(lanes.lane("adaptive"), AdaptiveSettings.builder()
          .minLimit(2).maxLimit(32).build());
    }
  }

  @BeforeAll
  static void startEverything() {
    redis = RedisServerProcess.start();
    BootDemo o = new BootDemo();
    new CommandLine(o).parseArgs("--server", "tomcat", "--mode", "lanes", "--port", "0", "--threads", "1");
    o.validate();
    Map<String, Object> p = BootDemo.properties(o);
    p.put("lanes.instances.slow.queue-capacity", 2);
    p.put("lanes.instances.partner.kind", "virtual");
    p.put("lanes.instances.partner.concurrency", 4);
    p.put("lanes.instances.partner.gate", "partnerCap");
    p.put("lanes.instances.adaptive.kind", "virtual");
    p.put("lanes.instances.adaptive.concurrency", 2);
    // Priority shares from properties alone: store's 4 permits, checkout first.
    p.put("lanes.shares.store.total", 4);
    p.put("lanes.shares.store.partitions.checkout.share", 0.5);
    p.put("lanes.shares.store.partitions.reports.share", 0.5);
    p.put("lanes.instances.store-checkout.kind", "virtual");
    p.put("lanes.instances.store-checkout.concurrency", 4);
    p.put("lanes.instances.store-checkout.share", "store/checkout");
    p.put("lanes.instances.store-reports.kind", "virtual");
    p.put("lanes.instances.store-reports.concurrency", 4);
    p.put("lanes.instances.store-reports.share", "store/reports");
    // The p99 panel's buckets (the README's Dashboards section says so).
    p.put("management.metrics.distribution.percentiles-histogram.lanes.task", true);
    SpringApplication boot = new SpringApplication(BootDemo.class, GatedAndAdaptiveLanes.class);
    boot.setWebApplicationType(WebApplicationType.SERVLET);
    boot.setDefaultProperties(p);
    app = boot.run();
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    prometheus = PrometheusProcess.start(port, "/actuator/prometheus", SCRAPE_INTERVAL);
    System.out.println("GrafanaDashboardTest: " + prometheus.version() + "; redis " + redis.version());
  }

  @AfterAll
  static void stopEverything() {
    // Each one stopped even when an earlier one fails to.
    try {
      if (prometheus != null) {
        prometheus.close();
      }
    } finally {
      try {
        if (app != null) {
          app.close();
        }
      } finally {
        http.close();
        if (redis != null) {
          redis.close();
        }
      }
    }
  }

  @Test
  void everyPanelTargetReturnsSeriesWithItsLegendsLabels() throws Exception {
    JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
    // Prometheus has the demo as a healthy target before the load starts, so that every counter
    // has a sample from before it and rates over the load are above zero.
    await().atMost(PATIENCE).untilAsserted(() ->
        assertThat(values(query("up{job=\"lanes\"}"))).containsExactly(1.0));

    driveLoad();
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(values(query("rate(lanes_tasks_total{lane=\"slow\",outcome=\"queue_full\"}[" + RATE_INTERVAL + "])")))
          .anyMatch(v -> v > 0);
      assertThat(values(query("rate(lanes_shared_permits_granted_total{lane=\"partner\"}[" + RATE_INTERVAL + "])")))
          .anyMatch(v -> v > 0);
      assertThat(values(query("lanes_adaptive_limit_tasks{lane=\"adaptive\"}"))).anyMatch(v -> v > 2);
      assertThat(values(query("rate(lanes_shares_partition_granted_total{share=\"store\"}[" + RATE_INTERVAL + "])")))
          .hasSize(2).allMatch(v -> v > 0);
    });

    Map<String, String> variables = variables(dashboard);
    List<String> checked = new ArrayList<>();
    for (JsonNode panel : panels(dashboard)) {
      String title = panel.path("title").asString();
      for (JsonNode target : panel.path("targets")) {
        String expr = substitute(target.path("expr").asString(), variables);
        assertThat(expr).as("panel \"%s\" target %s: every variable known", title,
            target.path("refId").asString()).doesNotContain("$");
        Set<String> labels = legendLabels(target.path("legendFormat").asString(""));
        JsonNode result = query(expr);
        assertThat(result.size()).as("panel \"%s\": %s returns series", title, expr).isPositive();
        for (JsonNode series : result) {
          for (String label : labels) {
            assertThat(series.path("metric").has(label))
                .as("panel \"%s\": %s gives each series the label %s of its legend, got %s", title,
                    expr, label, series.path("metric"))
                .isTrue();
          }
        }
        checked.add(title + " / " + target.path("refId").asString());
      }
    }
    // What the brief asks the dashboard to show is there (a panel renamed must be renamed here).
    assertThat(checked).extracting(c -> c.substring(0, c.lastIndexOf(" / "))).contains(
        "Queue wait vs run time (mean and max)", "Queue wait vs run time (p99)", "Saturated time",
        "In flight vs concurrency", "Queued vs queue capacity", "Rejections by reason",
        "Health state", "Shared cap: permits in use vs cap", "Adaptive limit within its bounds",
        "Shares: permits held vs guaranteed", "Shares: borrowed and waiting at the gate",
        "Shares: grants and borrows per second", "Shares: owed permits not given, guarantee breaches");
    // Share store as its panels show it: 2 guaranteed to each partition of 4; reports, alone at
    // first (checkout never active is lendable), borrowed checkout's 2; no guarantee was breached.
    assertThat(byLabels(query(substitute(expr(dashboard, "Shares: permits held vs guaranteed", "B"), variables)),
        "share", "partition")).containsEntry("store/checkout", 2.0).containsEntry("store/reports", 2.0);
    assertThat(byLabels(query(substitute(expr(dashboard, "Shares: permits held vs guaranteed", "C"), variables)),
        "share")).containsEntry("store", 4.0);
    String borrowed = substitute(expr(dashboard, "Shares: borrowed and waiting at the gate", "A"), variables);
    assertThat(byLabels(query("max_over_time((" + borrowed + ")[" + RATE_INTERVAL + ":1s])"), "share", "partition"))
        .containsEntry("store/reports", 2.0);
    assertThat(values(query(substitute(expr(dashboard, "Shares: owed permits not given, guarantee breaches", "B"),
        variables)))).containsOnly(0.0);

    // The load's figures, as the panels show them.
    Map<String, Double> rejected = byLabels(query(substitute(
        expr(dashboard, "Rejections by reason", "A"), variables)), "lane", "outcome");
    assertThat(rejected).containsKey("slow/queue_full");
    assertThat(rejected.get("slow/queue_full")).isPositive();
    // Lane slow as the saturation and health panels show it: some saturated time, and a state
    // other than OK (1 SATURATED, 2 REJECTING, 3 DEADLOCKED) at some scrape during the load.
    Map<String, String> slowOnly = new LinkedHashMap<>(variables);
    slowOnly.put("lane", "slow");
    String saturated = substitute(expr(dashboard, "Saturated time", "A"), slowOnly);
    String health = substitute(expr(dashboard, "Health state", "A"), slowOnly);
    await().atMost(PATIENCE).untilAsserted(() -> {
      assertThat(values(query("max_over_time((" + saturated + ")[" + RATE_INTERVAL + ":1s])")))
          .singleElement().satisfies(v -> assertThat(v).isPositive());
      assertThat(values(query("max_over_time((" + health + ")[" + RATE_INTERVAL + ":1s])")))
          .singleElement().satisfies(v -> assertThat(v).isGreaterThanOrEqualTo(1));
    });
    for (String line : checked) {
      System.out.println("GrafanaDashboardTest: checked " + line);
    }
  }

  @Test
  void theLaneVariableListsEveryLane() throws Exception {
    JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
    JsonNode lane = variable(dashboard, "lane");
    Matcher m = LABEL_VALUES.matcher(lane.path("definition").asString());
    assertThat(m.matches()).as("the lane variable is label_values(metric, label): %s", lane).isTrue();
    assertThat(lane.path("query").path("query").asString()).isEqualTo(lane.path("definition").asString());
    // All lanes selected when the dashboard opens.
    assertThat(lane.path("current").path("value").valueStream().map(JsonNode::asString).toList())
        .containsExactly("$__all");
    await().atMost(PATIENCE).untilAsserted(() -> {
      JsonNode answer = json.readTree(prometheus.get("/api/v1/label/" + m.group(2) + "/values",
          "match[]", m.group(1)));
      assertThat(answer.path("data").valueStream().map(JsonNode::asString).toList())
          .contains("http", "fast", "slow", "cpu", "partner", "adaptive");
    });
    Matcher share = LABEL_VALUES.matcher(variable(dashboard, "share").path("definition").asString());
    assertThat(share.matches()).isTrue();
    await().atMost(PATIENCE).untilAsserted(() -> assertThat(json.readTree(prometheus.get(
        "/api/v1/label/" + share.group(2) + "/values", "match[]", share.group(1))).path("data").valueStream()
        .map(JsonNode::asString).toList()).containsExactly("store"));
  }

  @Test
  void everyPanelAndTargetUsesThePrometheusDatasourceChosenAtImport() throws Exception {
    JsonNode dashboard = json.readTree(Files.readString(DASHBOARD));
    // Grafana's Import asks for each __inputs entry: here one Prometheus datasource.
    JsonNode inputs = dashboard.path("__inputs");
    assertThat(inputs.size()).isEqualTo(1);
    assertThat(inputs.get(0).path("name").asString()).isEqualTo("DS_PROMETHEUS");
    assertThat(inputs.get(0).path("type").asString()).isEqualTo("datasource");
    assertThat(inputs.get(0).path("pluginId").asString()).isEqualTo("prometheus");
    List<JsonNode> withDatasource = new ArrayList<>();
    for (JsonNode panel : panels(dashboard)) {
      withDatasource.add(panel);
      panel.path("targets").forEach(withDatasource::add);
    }
    withDatasource.add(variable(dashboard, "lane"));
    withDatasource.add(variable(dashboard, "share"));
    for (JsonNode node : withDatasource) {
      assertThat(node.path("datasource").path("type").asString()).as("%s", node).isEqualTo("prometheus");
      assertThat(node.path("datasource").path("uid").asString()).as("%s", node).isEqualTo("${DS_PROMETHEUS}");
    }
    assertThat(panels(dashboard)).hasSizeGreaterThanOrEqualTo(9);
  }

  /** Requests to the demo's endpoints and tasks on the gated and adaptive lanes, all joined. */
  private static void driveLoad() throws Exception {
    int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < SLOW_REQUESTS; i++) {
      calls.add(send(port, "/slow?ms=" + SLOW_MILLIS));
    }
    calls.add(send(port, "/fast"));
    calls.add(send(port, "/cpu?ms=5"));
    Lanes lanes = app.getBean(Lanes.class);
    List<CompletableFuture<?>> tasks = new ArrayList<>();
    Lane partner = lanes.lane("partner");
    for (int i = 0; i < GATED_TASKS; i++) {
      tasks.add(partner.submit("gated", () -> pause(20)));
    }
    Lane reports = lanes.lane("store-reports");
    for (int i = 0; i < 4; i++) {
      tasks.add(reports.submit("report", () -> pause(REPORT_MILLIS)));
    }
    await().atMost(PATIENCE).until(() -> reports.stats().running() == 4);
    Lane checkout = lanes.lane("store-checkout");
    for (int i = 0; i < 4; i++) {
      tasks.add(checkout.submit("order", () -> pause(20)));
    }
    Lane adaptive = lanes.lane("adaptive");
    for (int i = 0; i < ADAPTIVE_TASKS; i++) {
      tasks.add(adaptive.submit("adaptive", () -> pause(1)));
    }
    CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    List<Integer> statuses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> c : calls) {
      statuses.add(c.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).statusCode());
    }
    // One thread and a queue of two: most of the slow requests are refused (503), some answered.
    assertThat(statuses).contains(200, 503);
  }

  private static CompletableFuture<HttpResponse<String>> send(int port, String path) {
    return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** An instant query through Prometheus' HTTP API: the result vector (fails on an error). */
  private static JsonNode query(String expr) throws Exception {
    JsonNode answer = json.readTree(prometheus.get("/api/v1/query", "query", expr));
    assertThat(answer.path("status").asString()).as("%s: %s", expr, answer).isEqualTo("success");
    assertThat(answer.path("data").path("resultType").asString()).as(expr).isEqualTo("vector");
    return answer.path("data").path("result");
  }

  private static List<Double> values(JsonNode result) {
    List<Double> vs = new ArrayList<>();
    for (JsonNode s : result) {
      vs.add(Double.parseDouble(s.path("value").get(1).asString()));
    }
    return vs;
  }

  private static Map<String, Double> byLabels(JsonNode result, String... labels) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (JsonNode s : result) {
      List<String> key = new ArrayList<>();
      for (String l : labels) {
        key.add(s.path("metric").path(l).asString());
      }
      m.put(String.join("/", key), Double.parseDouble(s.path("value").get(1).asString()));
    }
    return m;
  }

  /** Every panel, those inside rows included. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> all = new ArrayList<>();
    collect(dashboard.path("panels"), all);
    return all;
  }

  private static void collect(JsonNode panels, List<JsonNode> into) {
    for (JsonNode p : panels) {
      if (p.path("type").asString().equals("row")) {
        collect(p.path("panels"), into);
      } else {
        into.add(p);
      }
    }
  }

  private static String expr(JsonNode dashboard, String title, String refId) {
    for (JsonNode p : panels(dashboard)) {
      if (p.path("title").asString().equals(title)) {
        for (JsonNode t : p.path("targets")) {
          if (t.path("refId").asString().equals(refId)) {
            return t.path("expr").asString();
          }
        }
      }
    }
    throw new AssertionError("no panel \"" + title + "\" with target " + refId);
  }

  private static JsonNode variable(JsonNode dashboard, String name) {
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if (v.path("name").asString().equals(name)) {
        return v;
      }
    }
    throw new AssertionError("no template variable " + name);
  }

  /**
   * The values Grafana gives the variables when every option is selected: a query variable with
   * "All" becomes its {@code allValue} (a regex, the panels match it with {@code =~}), and
   * {@code $__rate_interval} a window of several scrapes.
   */
  private static Map<String, String> variables(JsonNode dashboard) {
    Map<String, String> vs = new LinkedHashMap<>();
    for (JsonNode v : dashboard.path("templating").path("list")) {
      assertThat(v.path("includeAll").asBoolean()).as("variable %s offers All", v.path("name")).isTrue();
      vs.put(v.path("name").asString(), v.path("allValue").asString());
    }
    vs.put("__rate_interval", RATE_INTERVAL);
    return vs;
  }

  private static String substitute(String expr, Map<String, String> variables) {
    String out = expr;
    // Longest names first, so that $lane does not eat the start of a $lanes.
    List<String> names = new ArrayList<>(variables.keySet());
    names.sort((a, b) -> b.length() - a.length());
    for (String name : names) {
      String value = variables.get(name);
      out = out.replace("${" + name + "}", value).replace("[[" + name + "]]", value)
          .replace("$" + name, value);
    }
    return out;
  }

  private static Set<String> legendLabels(String legend) {
    Set<String> labels = new LinkedHashSet<>();
    Matcher m = LEGEND_LABEL.matcher(legend);
    while (m.find()) {
      labels.add(m.group(1));
    }
    return labels;
  }
}
