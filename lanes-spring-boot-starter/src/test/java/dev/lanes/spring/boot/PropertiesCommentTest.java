package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A {@code .properties} file has no end-of-line comments: a {@code #} or {@code !} after a value
 * is part of the value. A real Boot application reading a real {@code application.properties}
 * is refused naming that cause (issue #41: it said "no lane of that name is declared", or Spring's
 * {@code For input string: "4#four"}).
 */
class PropertiesCommentTest {
  private static final String CAUSE =
      ".properties files have no end-of-line comments; put the comment on its own line";

  @TempDir Path dir;

  private LanesPropertyException start(String properties) throws Exception {
    Path file = dir.resolve("application.properties");
    Files.writeString(file, properties);
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(() -> new SpringApplicationBuilder(TestApplication.class)
            .properties("server.port=0", "spring.config.location=file:" + file)
            .run()
            .close())
        .satisfies(t -> failure[0] = t)
        .isInstanceOf(LanesPropertyException.class);
    return (LanesPropertyException) failure[0];
  }

  @Test
  @Timeout(120)
  void aCommentAfterALaneNameNamesTheCause() throws Exception {
    LanesPropertyException e = start("""
        lanes.instances.http.kind=blocking
        lanes.instances.http.concurrency=4
        lanes.server.lane=http   # the embedded Tomcat
        """);
    assertThat(e.property()).isEqualTo("lanes.server.lane");
    assertThat(e.getMessage()).isEqualTo("Invalid value \"http   # the embedded Tomcat\" for property"
        + " lanes.server.lane: \"# the embedded Tomcat\" is part of the value: " + CAUSE);
  }

  @Test
  @Timeout(120)
  void aCommentAfterANumberNamesTheCause() throws Exception {
    LanesPropertyException e = start("""
        lanes.instances.db.kind=blocking
        lanes.instances.db.concurrency=4#four
        """);
    assertThat(e.property()).isEqualTo("lanes.instances.db.concurrency");
    assertThat(e.value()).isEqualTo("\"4#four\"");
    assertThat(e.reason()).contains(CAUSE);
  }

  @Test
  @Timeout(120)
  void anExclamationMarkCommentToo() throws Exception {
    LanesPropertyException e = start("""
        lanes.instances.db.kind=blocking ! the database
        lanes.instances.db.concurrency=4
        """);
    assertThat(e.property()).isEqualTo("lanes.instances.db.kind");
    assertThat(e.reason()).contains(CAUSE);
  }

  @Test
  @Timeout(120)
  void commentsOnTheirOwnLinesAreFine() throws Exception {
    Path file = dir.resolve("application.properties");
    Files.writeString(file, """
        # the database
        lanes.instances.db.kind=blocking
        ! four at once
        lanes.instances.db.concurrency=4
        """);
    new SpringApplicationBuilder(TestApplication.class)
        .properties("server.port=0", "spring.config.location=file:" + file)
        .run()
        .close();
  }
}
