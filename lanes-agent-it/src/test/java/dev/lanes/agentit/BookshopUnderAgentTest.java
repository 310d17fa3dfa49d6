package dev.lanes.agentit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bookshop (a Spring Boot 4 fat jar: Tomcat, JPA on H2, Jackson 3, its own Byte Buddy) answers
 * every request the same, status, content type and body, without the agent, with {@code
 * -javaagent:lanes-agent.jar}, and after {@code lanes-agent.jar attach <pid>}; its log has no
 * class-loading error, and the agent really ran (its table names Tomcat's request pool).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BookshopUnderAgentTest {
  /** Tomcat names its request pool after the connector; port 0 shows as "auto-N". */
  private static final Pattern TOMCAT_POOL = Pattern.compile("http-nio-127\\.0\\.0\\.1-auto-\\d+-exec");
  private static final List<String> LINKAGE_ERRORS = List.of("NoClassDefFoundError", "wrong name", "LinkageError");

  private static Map<String, String> withoutAgent;
  private static String withoutAgentLog;

  @BeforeAll
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  static void answersWithoutTheAgent(@TempDir Path dir) throws Exception {
    try (BookshopProcess app = BookshopProcess.start(dir, List.of())) {
      withoutAgent = Exchanges.send(app.url());
      withoutAgentLog = app.log();
    }
  }

  @Test
  void withoutTheAgentEachEndpointAnswersWhatItPromises() {
    assertThat(withoutAgentLog).doesNotContain(LINKAGE_ERRORS);
    assertThat(withoutAgent.get("GET /")).startsWith("200 text/html;charset=UTF-8\n<!doctype html>")
        .contains("<li>A Manual of Operation by Grace Hopper, 19.99</li>");
    assertThat(withoutAgent.get("GET /books/2")).isEqualTo("200 application/json\n"
        + "{\"author\":{\"name\":\"Ada Lovelace\",\"born\":1815,\"id\":1},\"id\":2,\"price\":8.05,"
        + "\"rating\":3.5,\"title\":\"Sketch of the Engine\"}");
    assertThat(withoutAgent.get("GET /books/3/author-proxy")).isEqualTo("200 application/json\n"
        + "{\"hibernateProxy\":true,\"subclassOfAuthor\":true,\"initializedBeforeRead\":false,"
        + "\"name\":\"Grace Hopper\",\"initializedAfterRead\":true}");
    assertThat(withoutAgent.get("GET /books/99")).isEqualTo("404 application/json\n"
        + "{\"timestamp\":\"(masked)\",\"status\":404,\"error\":\"Not Found\",\"path\":\"/books/99\"}");
    assertThat(withoutAgent.get("POST /numbers/doubles [1.5, 2.25e3]")).isEqualTo("200 application/json\n"
        + "{\"values\":[1.5,2250.0],\"count\":2,\"sum\":2251.5,\"max\":2250.0}");
    assertThat(withoutAgent.get("POST /numbers/invoice {\"item\":\"paper\",\"unitPrice\":19.99,\"quantity\":3,"
        + "\"parcelKilograms\":[1.5, 2.25e3, 0.125]}")).isEqualTo("200 application/json\n"
        + "{\"order\":{\"item\":\"paper\",\"unitPrice\":19.99,\"quantity\":3,\"parcelKilograms\":[1.5,2250.0,0.125]},"
        + "\"total\":59.97,\"kilograms\":2251.625,\"meanKilograms\":750.5416666666666}");
    assertThat(withoutAgent.get("POST /numbers/doubles [1.5, \"many\"]")).isEqualTo("400 application/json\n"
        + "{\"timestamp\":\"(masked)\",\"status\":400,\"error\":\"Bad Request\",\"path\":\"/numbers/doubles\"}");
    assertThat(withoutAgent.get("GET /runtime-subclass")).isEqualTo("200 application/json\n"
        + "{\"class\":\"dev.lanes.agentit.Greeter$MadeAtRunTime\",\"superclass\":\"dev.lanes.agentit.Greeter\","
        + "\"greeting\":\"hello from a subclass made at run time\",\"byteBuddyLoadedBy\":\"LaunchedClassLoader\","
        + "\"readFromClassFile\":\"public java.lang.String dev.lanes.agentit.Greeter.greet(java.lang.String)\"}");
  }

  @Test
  void withTheAgentFromTheStartItAnswersTheSame(@TempDir Path dir) throws Exception {
    Path table = dir.resolve("pools.tsv");
    Map<String, String> answers;
    String log;
    try (BookshopProcess app = BookshopProcess.start(dir,
        List.of("-javaagent:" + BookshopProcess.AGENT_JAR + "=table-file=" + table))) {
      answers = Exchanges.send(app.url());
      log = app.log();
    }
    assertSameAnswers(answers, log);
    // The agent writes its table when the JVM exits (close() stops it as SIGTERM would).
    assertThat(table).as("the agent's table at exit; the app's log:\n%s", log).exists();
    String tsv = Files.readString(table, StandardCharsets.UTF_8);
    String pool = tomcatPool(tsv, log);
    // Timed tasks, not one per request: Tomcat may read a kept-alive connection's next request in the same task.
    Map<String, String> row = row(tsv, pool);
    assertThat(row.get("kind")).as(tsv).isEqualTo("TOMCAT");
    assertThat(Long.parseLong(row.get("tasks"))).as("tasks of %s in\n%s", pool, tsv).isPositive();
    // Every request counted once, per request (TomcatHooks), whatever the tasks were.
    assertThat(Long.parseLong(row.get("requests"))).as(tsv).isEqualTo(answers.size());
    // Tomcat's and Hikari's scheduled pools, idle on a machine the suite keeps busy: never
    // SATURATED, and their tasks not yet due never counted as queued. (Whether the housekeeper's
    // next run is still scheduled when the table is written depends on which shutdown hook runs
    // first, Hikari's or the agent's; ScheduledAgentTest checks "scheduled" on a pool of its own.)
    for (String name : List.of("HikariPool-1:housekeeper", "Catalina-utility")) {
      assertThat(row(tsv, name).get("kind")).as(tsv).isEqualTo("SCHEDULED");
      assertThat(row(tsv, name).get("state")).as(tsv).isEqualTo("OK");
      assertThat(row(tsv, name).get("saturated_s")).as(tsv).isEqualTo("0.0");
      assertThat(row(tsv, name).get("queued")).as(tsv).isEqualTo("0");
    }
  }

  @Test
  void afterAttachItAnswersTheSame(@TempDir Path dir) throws Exception {
    Map<String, String> answers;
    String log;
    String table;
    // Allowed without the JDK's warning about an agent loaded after start-up (JEP 451).
    try (BookshopProcess app = BookshopProcess.start(dir, List.of("-XX:+EnableDynamicAgentLoading"))) {
      assertThat(attach(dir, app.pid())).as(app.log()).contains("the agent runs in " + app.pid());
      answers = Exchanges.send(app.url());
      table = attach(dir, app.pid(), "--table");
      log = app.log();
    }
    assertSameAnswers(answers, log);
    assertThat(tomcatPool(table, log)).isNotEmpty();
  }

  private static void assertSameAnswers(Map<String, String> answers, String log) {
    assertThat(answers.keySet()).containsExactlyElementsOf(withoutAgent.keySet());
    for (Map.Entry<String, String> e : withoutAgent.entrySet()) {
      assertThat(answers.get(e.getKey())).as("%s; the app's log:\n%s", e.getKey(), log).isEqualTo(e.getValue());
    }
    assertThat(log).as("the app's log").doesNotContain(LINKAGE_ERRORS);
  }

  /** {@code java -jar lanes-agent.jar attach <pid> ARGS}, with the JDK running the tests: its output. */
  private static String attach(Path dir, long pid, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(BookshopProcess.java(), "-jar", BookshopProcess.AGENT_JAR.toString(),
        "attach", String.valueOf(pid)));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "attach", ".txt");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      boolean ended = p.waitFor(120, TimeUnit.SECONDS);
      String printed = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(ended).as("%s ended within 120 s; it printed:\n%s", cmd, printed).isTrue();
      assertThat(p.exitValue()).as("%s exit status; it printed:\n%s", cmd, printed).isZero();
      return printed;
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  private static String tomcatPool(String table, String log) {
    Matcher m = TOMCAT_POOL.matcher(table);
    assertThat(m.find()).as("Tomcat's request pool in the agent's table:\n%s\nthe app's log:\n%s", table, log)
        .isTrue();
    return m.group();
  }

  private static Map<String, String> row(String tsv, String pool) {
    List<String> lines = tsv.lines().toList();
    String[] head = lines.get(0).split("\t", -1);
    String[] cells = lines.stream().filter(l -> l.startsWith(pool + "\t")).findFirst()
        .orElseThrow(() -> new AssertionError("no row " + pool + " in\n" + tsv)).split("\t", -1);
    return IntStream.range(0, head.length).boxed()
        .collect(Collectors.toMap(i -> head[i], i -> i < cells.length ? cells[i] : ""));
  }
}
