package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lane;
import dev.lanes.LaneRejectedException;
import dev.lanes.LaneSettings;
import dev.lanes.LaneStats;
import dev.lanes.Lanes;
import dev.lanes.OverflowPolicy;
import dev.lanes.SettingsChange;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Live changes in a real Boot application on the embedded Tomcat, over real HTTP: the actuator's
 * write operation, and Spring Cloud's refresh ({@code POST /actuator/refresh}) of an {@code
 * application.properties} on disk, as Spring Cloud Config, Consul or a Kubernetes config map
 * drive it.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiveChangesTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final JsonMapper json = JsonMapper.builder().build();

  @TempDir Path dir;
  private Path config;
  private ConfigurableApplicationContext context;
  private HttpClient http;
  private Lane work;
  private int port;

  private static final String BASE = """
      lanes.instances.http.kind=blocking
      lanes.instances.http.concurrency=8
      lanes.instances.db.kind=blocking
      lanes.instances.db.concurrency=1
      lanes.server.lane=http
      management.endpoints.web.exposure.include=lanes,refresh
      """;

  @BeforeEach
  void start() throws Exception {
    config = dir.resolve("application.properties");
    Files.writeString(config, BASE + """
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=4
        lanes.instances.work.queue-capacity=200
        """);
    context = new SpringApplicationBuilder(TestApplication.class)
        .properties("spring.config.additional-location=file:" + dir + "/", "server.port=0")
        .run();
    port = ((WebServerApplicationContext) context).getWebServer().getPort();
    http = HttpClient.newBuilder().connectTimeout(PATIENCE).build();
    work = context.getBean(Lanes.class).lane("work");
  }

  @AfterEach
  void stop() {
    http.close();
    context.close();
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(PATIENCE)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(PATIENCE).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @Timeout(120)
  void theActuatorChangesALaneAndAnswersItsSettings(CapturedOutput output) throws Exception {
    List<SettingsChange> heard = new CopyOnWriteArrayList<>();
    work.onSettings(heard::add);
    HttpResponse<String> response = post("/actuator/lanes/work", """
        {"concurrency": 6, "queueCapacity": 50, "overflow": "block-caller", "blockTimeout": "250ms",
         "shedTarget": "5ms", "shedInterval": "100ms", "fixedWaitThreshold": "40ms",
         "saturationWindow": "3s", "saturationMinWait": "2ms", "enterAfter": "500ms", "exitAfter": "4s"}
        """);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    LaneSettings s = work.settings();
    assertThat(s).isEqualTo(new LaneSettings(6, 50, OverflowPolicy.blockCaller(Duration.ofMillis(250)),
        Duration.ofMillis(5), Duration.ofMillis(100), s.waitToRunRatio(), Duration.ofMillis(40),
        Duration.ofSeconds(3), Duration.ofMillis(2), Duration.ofMillis(500), Duration.ofSeconds(4)));
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("concurrency").asInt()).isEqualTo(6);
    assertThat(body.get("queueCapacity").asInt()).isEqualTo(50);
    assertThat(body.get("overflow").asString()).isEqualTo("block-caller");
    assertThat(body.get("blockTimeout").asString()).isEqualTo("PT0.25S");
    assertThat(body.get("shedTarget").asString()).isEqualTo("PT0.005S");
    assertThat(body.get("fixedWaitThreshold").asString()).isEqualTo("PT0.04S");
    assertThat(body.get("exitAfter").asString()).isEqualTo("PT4S");
    // One change, told once; the read side shows the settings too.
    assertThat(heard).singleElement().satisfies(c -> assertThat(c.after()).isEqualTo(s));
    assertThat(output.getOut()).containsOnlyOnce("lane \"work\": settings changed: concurrency 4 → 6, queueCapacity 200 → 50");
    JsonNode read = json.readTree(get("/actuator/lanes/work").body());
    assertThat(read.get("settings").get("queueCapacity").asInt()).isEqualTo(50);
    // Half a pair takes the other half from the lane; shedTarget 0 turns shedding off.
    post("/actuator/lanes/work", "{\"exitAfter\": \"1s\", \"shedTarget\": \"0s\", \"waitToRunRatio\": 2.5}");
    assertThat(work.settings().enterAfter()).isEqualTo(Duration.ofMillis(500));
    assertThat(work.settings().exitAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(work.settings().shedding()).isFalse();
    assertThat(work.settings().fixedWaitThreshold()).isNull();
    assertThat(work.settings().waitToRunRatio()).isEqualTo(2.5);
    assertThat(post("/actuator/lanes/nope", "{\"concurrency\": 2}").statusCode()).isEqualTo(404);
    // A misspelled name beside a valid one is ignored (Actuator ignores unknown JSON fields).
    assertThat(post("/actuator/lanes/work", "{\"concurrency\": 5, \"queueSize\": 1}").statusCode()).isEqualTo(200);
    assertThat(work.settings().concurrency()).isEqualTo(5);
    assertThat(work.settings().queueCapacity()).isEqualTo(50);
  }

  @Test
  @Timeout(120)
  void aRefusedValueAnswers400WithTheBuildersMessageAndChangesNothing() throws Exception {
    LaneSettings before = work.settings();
    HttpResponse<String> response = post("/actuator/lanes/work", "{\"queueCapacity\": 50, \"concurrency\": 0}");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json.readTree(response.body()).get("error").asString())
        .isEqualTo("lane \"work\": concurrency must be between 1 and 32767, was 0");
    assertThat(work.settings()).isEqualTo(before); // the valid queueCapacity was not applied either
    HttpResponse<String> ratio = post("/actuator/lanes/work", "{\"waitToRunRatio\": -1}");
    assertThat(ratio.statusCode()).isEqualTo(400);
    assertThat(ratio.body()).contains("lane \\\"work\\\": saturation wait-to-run ratio must be a finite number > 0, was -1.0");
    HttpResponse<String> timeout = post("/actuator/lanes/work", "{\"blockTimeout\": \"1s\"}");
    assertThat(timeout.statusCode()).isEqualTo(400);
    assertThat(timeout.body()).contains("blockTimeout applies only with overflow block-caller, was PT1S with overflow reject");
    HttpResponse<String> nothing = post("/actuator/lanes/work", "{\"queueSize\": 50}");
    assertThat(nothing.statusCode()).isEqualTo(400);
    assertThat(nothing.body()).contains("nothing to change");
    assertThat(work.settings()).isEqualTo(before);
  }

  private void refreshWith(String workLines) throws Exception {
    Files.writeString(config, BASE + workLines);
    HttpResponse<String> refreshed = post("/actuator/refresh", "");
    assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
  }

  @Test
  @Timeout(120)
  void aRefreshedEnvironmentChangesTheLane(CapturedOutput output) throws Exception {
    // A change through the actuator survives a refresh that does not name its setting.
    assertThat(post("/actuator/lanes/work", "{\"exitAfter\": \"7s\"}").statusCode()).isEqualTo(200);
    refreshWith("""
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=6
        lanes.instances.work.queue-capacity=300
        lanes.instances.work.shed-target=5ms
        lanes.instances.work.shed-interval=100ms
        """);
    assertThat(work.settings().concurrency()).isEqualTo(6);
    assertThat(work.settings().queueCapacity()).isEqualTo(300);
    assertThat(work.settings().shedTarget()).isEqualTo(Duration.ofMillis(5));
    assertThat(work.settings().exitAfter()).isEqualTo(Duration.ofSeconds(7));
    // A removed key takes the default again.
    refreshWith("""
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=6
        """);
    assertThat(work.settings().queueCapacity()).isEqualTo(dev.lanes.LaneBuilder.DEFAULT_QUEUE_CAPACITY);
    assertThat(work.settings().shedding()).isFalse();
    assertThat(work.settings().concurrency()).isEqualTo(6);
    // A refused value: one WARN with the property and the builder's message; the lane keeps its settings.
    LaneSettings before = work.settings();
    refreshWith("""
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=0
        """);
    assertThat(work.settings()).isEqualTo(before);
    assertThat(output.getOut()).contains("refused the new configuration of lane \"work\": property "
        + "lanes.instances.work.concurrency, value \"0\": lane \"work\": concurrency must be between 1 and 32767, was 0");
    // A setting that cannot change live: one WARN naming it; the lane is unchanged, concurrency too.
    refreshWith("""
        lanes.instances.work.kind=virtual
        lanes.instances.work.concurrency=3
        """);
    assertThat(work.settings()).isEqualTo(before);
    assertThat(output.getOut()).contains("lanes.instances.work.kind cannot change while the lane runs");
    // A lane declared while the application runs is not created.
    refreshWith("""
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=6
        lanes.instances.extra.kind=cpu
        """);
    assertThat(context.getBean(Lanes.class).names()).doesNotContain("extra");
    assertThat(output.getOut()).contains("lane \"extra\" was declared in the environment while the application runs;"
        + " lanes are not added live");
  }

  @Test
  @Timeout(120)
  void aRefreshWithAValueThatDoesNotConvertWarnsOnceAndAppliesTheGoodKeys(CapturedOutput output)
      throws Exception {
    Files.writeString(config, BASE.replace("lanes.instances.db.concurrency=1",
        "lanes.instances.db.concurrency=3") + """
        lanes.instances.work.kind=blocking
        lanes.instances.work.concurrency=six
        lanes.instances.work.queue-capacity=300
        """);
    HttpResponse<String> refreshed = post("/actuator/refresh", "");
    assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
    assertThat(work.settings().concurrency()).as("the bad value is refused").isEqualTo(4);
    assertThat(work.settings().queueCapacity()).as("the good key of the same lane").isEqualTo(300);
    Lane db = context.getBean(Lanes.class).lane("db");
    assertThat(db.settings().concurrency()).as("another lane's change").isEqualTo(3);
    // Spring's view of the settings is the lane's.
    LanesProperties.Instance seen = context.getBean(LanesProperties.class).getInstances().get("work");
    assertThat(seen.getConcurrency()).isEqualTo(4);
    assertThat(seen.getQueueCapacity()).isEqualTo(300);
    String warning = "lanes: refused property lanes.instances.work.concurrency, value \"six\": not a"
        + " whole number (for example 8); lane \"work\" keeps that setting";
    assertThat(output.getOut()).contains(warning);
    assertThat(output.getOut().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
    assertThat(output.getOut()).doesNotContain("NumberFormatException");
  }

  @Test
  @Timeout(120)
  void aPostWithAValueOfTheWrongTypeNamesTheFieldTheTypeAndAnExample() throws Exception {
    LaneSettings before = work.settings();
    HttpResponse<String> number = post("/actuator/lanes/work", "{\"concurrency\": \"six\"}");
    assertThat(number.statusCode()).isEqualTo(400);
    assertThat(json.readTree(number.body()).get("error").asString()).isEqualTo(
        "lane \"work\": concurrency must be a whole number (for example 8), was \"six\"");
    HttpResponse<String> duration = post("/actuator/lanes/work", "{\"shedTarget\": \"5 ms\"}");
    assertThat(duration.statusCode()).isEqualTo(400);
    assertThat(json.readTree(duration.body()).get("error").asString()).isEqualTo(
        "lane \"work\": shedTarget must be a duration (for example 200ms, 5s or PT0.2S), was \"5 ms\"");
    HttpResponse<String> overflow = post("/actuator/lanes/work", "{\"overflow\": \"blocking\"}");
    assertThat(overflow.statusCode()).isEqualTo(400);
    assertThat(json.readTree(overflow.body()).get("error").asString()).isEqualTo(
        "lane \"work\": overflow must be one of reject, caller-runs, block-caller, discard-oldest"
            + " (for example discard-oldest), was \"blocking\"");
    HttpResponse<String> ratio = post("/actuator/lanes/work", "{\"waitToRunRatio\": \"much\"}");
    assertThat(ratio.statusCode()).isEqualTo(400);
    assertThat(json.readTree(ratio.body()).get("error").asString()).isEqualTo(
        "lane \"work\": waitToRunRatio must be a number (for example 2.5), was \"much\"");
    assertThat(work.settings()).isEqualTo(before);
    // The forms that convert still do: numbers as JSON numbers or strings, relaxed enum names.
    assertThat(post("/actuator/lanes/work", "{\"concurrency\": \"5\", \"overflow\": \"CALLER_RUNS\"}")
        .statusCode()).isEqualTo(200);
    assertThat(work.settings().concurrency()).isEqualTo(5);
  }

  @Test
  @Timeout(120)
  void withoutSpringCloudsRefreshAnEnvironmentChangeEventOfTheAppsOwnDoesIt() {
    Map<String, Object> changed = new HashMap<>(Map.of("lanes.instances.work.queue-capacity", "77"));
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("mine", changed));
    context.publishEvent(new EnvironmentChangeEvent(context, Set.of("lanes.instances.work.queue-capacity")));
    assertThat(work.settings().queueCapacity()).isEqualTo(77);
  }

  @Test
  @Timeout(120)
  void aReadOnlyEndpointRefusesThePost() throws Exception {
    try (ConfigurableApplicationContext readOnly = new SpringApplicationBuilder(TestApplication.class)
        .properties("spring.config.additional-location=file:" + dir + "/", "server.port=0",
            "management.endpoint.lanes.access=read-only")
        .run()) {
      int readOnlyPort = ((WebServerApplicationContext) readOnly).getWebServer().getPort();
      Lane lane = readOnly.getBean(Lanes.class).lane("work");
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + readOnlyPort + "/actuator/lanes/work"))
              .timeout(PATIENCE).header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{\"concurrency\": 2}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isIn(404, 405);
      assertThat(lane.settings().concurrency()).isEqualTo(4);
      HttpResponse<String> read = http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + readOnlyPort + "/actuator/lanes/work"))
              .timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(read.statusCode()).isEqualTo(200);
    }
  }

  /**
   * Several threads change concurrency and queue capacity over HTTP while others submit: every
   * accepted task runs once, and the books balance.
   */
  @Test
  @Timeout(240)
  void concurrentChangesUnderLoadLoseNoTask() throws Exception {
    int submitters = 3;
    int tasksEach = 3_000;
    int changers = 2;
    int changesEach = 25;
    LaneStats start = work.stats();
    AtomicInteger ran = new AtomicInteger();
    AtomicLong rejected = new AtomicLong();
    ConcurrentLinkedQueue<CompletableFuture<?>> accepted = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<String> answers = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < submitters; i++) {
      threads.add(Thread.ofPlatform().name("submitter-" + i).start(() -> {
        try {
          go.await();
          for (int t = 0; t < tasksEach; t++) {
            submitShortTask(accepted, rejected, ran);
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }));
    }
    for (int i = 0; i < changers; i++) {
      threads.add(Thread.ofPlatform().name("changer-" + i).start(() -> {
        try {
          go.await();
          for (int c = 0; c < changesEach; c++) {
            int concurrency = ThreadLocalRandom.current().nextInt(1, 9);
            int capacity = ThreadLocalRandom.current().nextInt(5, 400);
            HttpResponse<String> r = post("/actuator/lanes/work",
                "{\"concurrency\": " + concurrency + ", \"queueCapacity\": " + capacity + "}");
            answers.add(r.statusCode() + " " + r.body());
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }));
    }
    go.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(200));
      assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
    }
    assertThat(failures).isEmpty();
    assertThat(answers).hasSize(changers * changesEach).allSatisfy(a -> assertThat(a).startsWith("200 "));
    CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(accepted).allSatisfy(f -> assertThat(f).isCompletedWithValue(null));
    assertThat(ran.get()).isEqualTo(accepted.size());
    LaneStats end = work.stats();
    assertThat(end.submitted() - start.submitted()).isEqualTo((long) submitters * tasksEach);
    assertThat(accepted.size() + rejected.get()).isEqualTo((long) submitters * tasksEach);
    assertThat(end.rejected() - start.rejected()).isEqualTo(rejected.get());
    assertThat(end.completed() - start.completed()).isEqualTo(accepted.size());
    assertThat(end.queued()).isZero();
    assertThat(end.running()).isZero();
    assertThat(end.submitted()).isEqualTo(end.endedTotal() + end.queued() + end.running());
    // The lane's settings now are those one of the changes answered (the last applied).
    List<String> answered = answers.stream().map(a -> json.readTree(a.substring(4)))
        .map(n -> n.get("concurrency").asInt() + "/" + n.get("queueCapacity").asInt()).toList();
    assertThat(answered).contains(work.settings().concurrency() + "/" + work.settings().queueCapacity());
    System.out.printf("live changes under load: %d accepted, %d rejected, %d changes%n",
        accepted.size(), rejected.get(), answers.size());
  }

  /**
   * Refreshes of the environment (a config server's push, {@code POST /actuator/refresh}) change
   * the lane's concurrency and queue capacity ten times while three threads keep submitting:
   * every accepted task runs once, the books balance, and the lane ends with the last refresh's
   * values.
   */
  @Test
  @Timeout(240)
  void refreshesUnderLoadLoseNoTask() throws Exception {
    LaneStats start = work.stats();
    AtomicInteger ran = new AtomicInteger();
    AtomicLong submitted = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    AtomicBoolean refreshing = new AtomicBoolean(true);
    ConcurrentLinkedQueue<CompletableFuture<?>> accepted = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> submitters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      submitters.add(Thread.ofPlatform().name("submitter-" + i).start(() -> {
        try {
          go.await();
          while (refreshing.get()) {
            submitted.incrementAndGet();
            submitShortTask(accepted, rejected, ran);
            LockSupport.parkNanos(50_000);
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      }));
    }
    go.countDown();
    int concurrency = 0;
    int capacity = 0;
    try {
      for (int r = 0; r < 10; r++) {
        concurrency = ThreadLocalRandom.current().nextInt(1, 9);
        capacity = ThreadLocalRandom.current().nextInt(5, 400);
        refreshWith("lanes.instances.work.kind=blocking\n"
            + "lanes.instances.work.concurrency=" + concurrency + "\n"
            + "lanes.instances.work.queue-capacity=" + capacity + "\n");
        assertThat(work.settings().concurrency()).isEqualTo(concurrency);
        assertThat(work.settings().queueCapacity()).isEqualTo(capacity);
      }
    } finally {
      refreshing.set(false);
      for (Thread t : submitters) {
        t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
      }
    }
    assertThat(failures).isEmpty();
    CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(ran.get()).isEqualTo(accepted.size());
    LaneStats end = work.stats();
    assertThat(end.submitted() - start.submitted()).isEqualTo(submitted.get());
    assertThat(accepted.size() + rejected.get()).isEqualTo(submitted.get());
    assertThat(end.completed() - start.completed()).isEqualTo(accepted.size());
    assertThat(end.rejected() - start.rejected()).isEqualTo(rejected.get());
    assertThat(end.submitted()).isEqualTo(end.endedTotal() + end.queued() + end.running());
    assertThat(work.settings().concurrency()).isEqualTo(concurrency);
    assertThat(work.settings().queueCapacity()).isEqualTo(capacity);
    assertThat(accepted).isNotEmpty();
    System.out.printf("refreshes under load: %d accepted, %d rejected, 10 refreshes%n",
        accepted.size(), rejected.get());
  }

  /**
   * Submits one 20 µs task to the "work" lane: its future joins {@code accepted}, or its refusal
   * is counted.
   */
  private void submitShortTask(ConcurrentLinkedQueue<CompletableFuture<?>> accepted,
      AtomicLong rejected, AtomicInteger ran) {
    try {
      accepted.add(work.submit(() -> {
        ran.incrementAndGet();
        LockSupport.parkNanos(20_000);
      }));
    } catch (LaneRejectedException e) {
      rejected.incrementAndGet();
    }
  }
}
