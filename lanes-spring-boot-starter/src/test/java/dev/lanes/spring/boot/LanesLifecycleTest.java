package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lane;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/** Startup failures as a user sees them, and shutdown in step with Spring's lifecycle. */
@ExtendWith(OutputCaptureExtension.class)
class LanesLifecycleTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class));

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(LanesAutoConfiguration.class)
  static class PlainApp {}

  private static void start(String... args) {
    SpringApplication app = new SpringApplication(PlainApp.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    app.run(args).close();
  }

  @Test
  void aBadLaneSettingStopsStartupWithAReportNamingThePropertyAndValue(CapturedOutput output) {
    assertThatThrownBy(
            () -> start("--lanes.instances.db.kind=blocking", "--lanes.instances.db.concurrency=0"))
        // Checked before any bean is made: the failure itself, not a bean creation wrapping it.
        .isInstanceOf(LanesPropertyException.class);
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("Property: lanes.instances.db.concurrency")
        .contains("Value: \"0\"")
        .contains("concurrency must be between 1 and 32767, was 0");
  }

  @Test
  void aValueThatDoesNotBindStopsStartupWithSpringBootsReport(CapturedOutput output) {
    assertThatThrownBy(() -> start("--lanes.instances.db.kind=fast")).isNotNull();
    assertThat(output.getOut() + output.getErr())
        .contains("APPLICATION FAILED TO START")
        .contains("lanes.instances.db.kind")
        .contains("fast");
  }

  @Test
  void closingTheApplicationRunsEveryAcceptedTask() throws Exception {
    runner
        .withPropertyValues("lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=1")
        .run(
            context -> {
              Lane db = context.getBean("db", Lane.class);
              CountDownLatch release = new CountDownLatch(1);
              CompletableFuture<String> running =
                  db.submit(
                      () -> {
                        release.await();
                        return "ran";
                      });
              CompletableFuture<String> queued = db.submit(() -> "queued ran");
              Thread closer = new Thread(context::close, "closer");
              closer.start();
              await().atMost(PATIENCE).until(db::isShutdown); // stop() began: no new tasks
              assertThatThrownBy(() -> db.submit(() -> "late"))
                  .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
              release.countDown();
              closer.join(PATIENCE.toMillis());
              assertThat(closer.isAlive()).isFalse();
              assertThat(running.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ran");
              assertThat(queued.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("queued ran");
              assertThat(db.isTerminated()).isTrue();
            });
  }

  @Test
  void aLaneStillBusyAfterTheAwaitIsStoppedAndWhatNeverStartedIsReported(CapturedOutput output)
      throws Exception {
    runner
        .withPropertyValues(
            "lanes.instances.db.kind=blocking",
            "lanes.instances.db.concurrency=1",
            "lanes.shutdown.await-termination=0s")
        .run(
            context -> {
              Lane db = context.getBean("db", Lane.class);
              CountDownLatch started = new CountDownLatch(1);
              CompletableFuture<?> stuck =
                  db.submit(
                      () -> {
                        started.countDown();
                        new CountDownLatch(1).await(); // until interrupted
                        return null;
                      });
              db.submit(() -> "never starts");
              assertThat(started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
              context.close();
              assertThat(db.isShutdown()).isTrue();
              await().atMost(PATIENCE).until(stuck::isDone); // interrupted by shutdownNow
              assertThat(output.getOut() + output.getErr())
                  .contains("lane \"db\" did not finish within PT0S")
                  .contains("1 task(s) that never started were returned by shutdownNow");
            });
  }
}
