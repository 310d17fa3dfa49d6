package dev.lanes.bootapps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.spring.boot.LanesAsyncQualifierException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The two {@code @Async} traps of issue #26, in real Boot applications: without {@code
 * @EnableAsync}, {@code @Async("db")} runs on the caller's thread (now with a WARN naming the
 * method), and a name with no executor behind it fails the start-up listing the lanes.
 */
@ExtendWith(OutputCaptureExtension.class)
class AsyncChecksTest {
  private static final String WARNING = "@Async has no effect in this application: no @EnableAsync";

  private static ConfigurableApplicationContext start(Class<?> app, String... more) {
    return new SpringApplicationBuilder(app)
        .properties(more)
        .properties("spring.main.web-application-type=none",
            "lanes.instances.db.kind=blocking", "lanes.instances.db.concurrency=2",
            "lanes.instances.http.kind=blocking", "lanes.instances.http.concurrency=2")
        .run();
  }

  @Test
  @Timeout(60)
  void withoutEnableAsyncTheMethodRunsOnTheCallerAndAWarningNamesIt(CapturedOutput output) throws Exception {
    try (ConfigurableApplicationContext context = start(AsyncApps.WithoutEnableAsync.class)) {
      String thread = context.getBean(AsyncApps.Users.class).load().get(30, TimeUnit.SECONDS);
      assertThat(thread).isEqualTo(Thread.currentThread().getName()); // the trap itself
      String warning = output.getOut().lines().filter(l -> l.contains(WARNING)).findFirst().orElse("");
      assertThat(warning).contains(" WARN ");
      assertThat(output.getOut())
          .contains("@Async(\"db\") dev.lanes.bootapps.AsyncApps$Users.load()")
          .contains("Add @EnableAsync to a @Configuration class.");
    }
  }

  @Test
  @Timeout(60)
  void withEnableAsyncTheMethodRunsInItsLaneAndNothingIsSaid(CapturedOutput output) throws Exception {
    try (ConfigurableApplicationContext context = start(AsyncApps.WithEnableAsync.class)) {
      assertThat(context.getBean(AsyncApps.Users.class).load().get(30, TimeUnit.SECONDS)).startsWith("db-");
      assertThat(output.getOut()).doesNotContain(WARNING);
    }
  }

  @Test
  @Timeout(60)
  void aNameWithNoLaneNorExecutorFailsTheStartUpListingTheLanes(CapturedOutput output) {
    assertThatThrownBy(() -> start(AsyncApps.WithAnUnknownName.class).close())
        .isInstanceOf(LanesAsyncQualifierException.class)
        .hasMessageStartingWith("@Async(\"reports\") on dev.lanes.bootapps.AsyncApps$Reports.run() names no lane"
            + " and no Executor bean (declared lanes: ")
        .satisfies(e -> assertThat(((LanesAsyncQualifierException) e).declaredLanes())
            .containsExactlyInAnyOrder("db", "http"));
    assertThat(output.getOut())
        .contains("APPLICATION FAILED TO START")
        .containsPattern("Declared lanes: (db, http|http, db)");
  }

  @Test
  @Timeout(60)
  void aPlaceholderIsResolvedFirst() throws Exception {
    try (ConfigurableApplicationContext context = start(AsyncApps.WithAPlaceholder.class, "app.lane=db")) {
      assertThat(context.getBean(AsyncApps.Configured.class).where().get(30, TimeUnit.SECONDS)).startsWith("db-");
    }
    assertThatThrownBy(() -> start(AsyncApps.WithAPlaceholder.class, "app.lane=nope").close())
        .isInstanceOfSatisfying(LanesAsyncQualifierException.class,
            e -> assertThat(e.qualifier()).isEqualTo("nope"));
  }

  @Test
  @Timeout(60)
  void aNameOfTheApplicationsOwnExecutorIsFine() {
    try (ConfigurableApplicationContext context = start(AsyncApps.WithItsOwnExecutor.class)) {
      assertThat(context.isActive()).isTrue();
    }
  }
}
