package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A bad lanes setting is the first thing a failed start-up prints, in a real Boot application with
 * the embedded Tomcat (issue #26: every lanes failure came after a WARN "Unable to start web
 * server", which pointed away from the cause).
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureOutputTest {
  private static final Pattern WARN_OR_ERROR = Pattern.compile("\\b(WARN|ERROR)\\b");

  private static void start(String... properties) {
    new SpringApplicationBuilder(TestApplication.class)
        .properties("server.port=0", "lanes.instances.db.kind=blocking", "lanes.instances.http.kind=blocking",
            "lanes.instances.http.concurrency=4", "lanes.server.lane=http")
        .properties(properties)
        .run()
        .close();
  }

  /** The first line of the output at WARN or ERROR. */
  private static String firstWarning(CapturedOutput output) {
    return output.getOut().lines().filter(l -> WARN_OR_ERROR.matcher(l).find()).findFirst().orElse("");
  }

  @Test
  @Timeout(120)
  void aBadValueIsTheFirstWarningAndTheWebServerIsNotBlamed(CapturedOutput output) {
    assertThatThrownBy(() -> start("lanes.instances.db.concurrency=0"))
        .isInstanceOf(LanesPropertyException.class);
    assertThat(firstWarning(output))
        .contains("lanes.instances.db.concurrency")
        .contains("lane \"db\": concurrency must be between 1 and 32767, was 0");
    assertThat(output.getOut()).doesNotContain("Unable to start web server");
    assertThat(output.getOut())
        .contains("APPLICATION FAILED TO START")
        .contains("Property: lanes.instances.db.concurrency")
        .contains("Value: \"0\"");
  }

  @Test
  @Timeout(120)
  void anUnknownSettingIsTheFirstWarningWithTheNearestName(CapturedOutput output) {
    assertThatThrownBy(() -> start("lanes.instances.db.concurrency=2", "lanes.instances.db.queue-size=50"))
        .isInstanceOf(LanesPropertyException.class);
    assertThat(firstWarning(output))
        .contains("lanes.instances.db.queue-size")
        .contains("did you mean lanes.instances.db.queue-capacity?");
    assertThat(output.getOut()).doesNotContain("Unable to start web server");
  }

  /** A misspelled prefix with no lane declared at all: the lane would silently never exist. */
  @Test
  @Timeout(120)
  void aMisspelledPrefixFailsAnApplicationThatDeclaresNoLane(CapturedOutput output) {
    assertThatThrownBy(() -> new SpringApplicationBuilder(TestApplication.class)
            .properties("server.port=0", "lanes.instance.reports.kind=blocking")
            .run()
            .close())
        .isInstanceOf(LanesPropertyException.class);
    assertThat(firstWarning(output))
        .contains("lanes.instance.reports.kind")
        .contains("did you mean lanes.instances.reports.kind?");
    assertThat(output.getOut())
        .contains("APPLICATION FAILED TO START")
        .contains("Property: lanes.instance.reports.kind")
        .doesNotContain("Unable to start web server");
  }
}
