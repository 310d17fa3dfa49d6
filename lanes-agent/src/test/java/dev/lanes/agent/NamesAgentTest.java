package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.agent.apps.NamesApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Pools' names: the same under {@code -javaagent} and after {@code ./lanes attach}. */
class NamesAgentTest {
  /** The pools of {@link NamesApp} whose threads name them, the JDK's process reaper among them. */
  private static final Set<String> NAMED_BY_THREADS = Set.of("NamesApp:housekeeper",
      "names-worker", NamesApp.LONG_PREFIX + "-alpha", NamesApp.LONG_PREFIX + "-beta",
      "jdk:process-reaper");

  @Test
  void aPoolHasTheSameNameWhetherTheAgentStartedWithTheJvmOrWasAttached() throws Exception {
    AgentJvm.Result started = AgentJvm.run(NamesApp.class, "");
    assertThat(started.exit()).as(started.err()).isZero();
    Set<String> fromStart = started.pools().stream().map(p -> p.get("pool")).collect(Collectors.toSet());
    assertThat(fromStart).containsAll(NAMED_BY_THREADS);
    // Made by an anonymous subclass with the JDK's default thread names: named where it was made.
    assertThat(fromStart).anySatisfy(n -> assertThat(n).startsWith("NamesApp.makeAnonymousPool:"));
    assertThat(fromStart).noneSatisfy(n -> assertThat(n).contains("<init>"));

    Set<String> fromAttach = attachedNames();
    assertThat(fromAttach).containsAll(NAMED_BY_THREADS);
  }

  @Test
  void aJdkPoolNoThreadRanYetIsNamedAfterTheJdkClassThatMadeItNotTheApplicationsCaller()
      throws Exception {
    AgentJvm.Result r = AgentJvm.run(NamesApp.class, "", "pid");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.pools().stream().map(p -> p.get("pool"))).contains("jdk:ProcessHandleImpl")
        .noneSatisfy(n -> assertThat(n).startsWith("NamesApp."));
  }

  @Test
  void thePlatformThreadFactoryTheJdkOffersApplicationsDoesNotMakeAPoolTheJdks() {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), Thread.ofPlatform().name("app-", 1).factory());
    assertThat(Pools.jdkMaker(pool)).isNull();
    assertThat(Pools.jdkMaker(new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>()))).isNull();
  }

  private static Set<String> attachedNames() throws Exception {
    Path err = Files.createTempFile("names", ".err");
    Process app = new ProcessBuilder(AgentJvm.java(), "-XX:+EnableDynamicAgentLoading", "-cp",
        AgentJvm.CLASSES, NamesApp.class.getName(), "serve").redirectError(err.toFile()).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("ready");
      AgentJvm.attach(app.pid(), "--tsv"); // loads the agent; the pools exist, their workers too
      OutputStream in = app.getOutputStream();
      AtomicReference<Set<String>> names = new AtomicReference<>(Set.of());
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
        in.write('\n'); // one more round: a task on every pool, a process started
        in.flush();
        assertThat(out.readLine()).isEqualTo("round");
        List<Map<String, String>> pools = AgentJvm.parse(AgentJvm.attach(app.pid(), "--tsv"));
        names.set(pools.stream().map(p -> p.get("pool")).collect(Collectors.toSet()));
        return names.get().containsAll(NAMED_BY_THREADS);
      });
      // The text table shows both long names whole.
      assertThat(AgentJvm.attach(app.pid(), "--table")).contains(NamesApp.LONG_PREFIX + "-alpha ",
          NamesApp.LONG_PREFIX + "-beta ");
      return names.get();
    } finally {
      app.getOutputStream().close();
      if (!app.waitFor(30, TimeUnit.SECONDS)) {
        app.destroyForcibly().waitFor();
      }
      assertThat(app.exitValue()).as(Files.readString(err)).isZero();
    }
  }


}
