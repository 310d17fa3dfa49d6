package dev.lanes.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestRunTest {

  @TempDir Path root;

  private void report(String module, String cls, int tests, int failures, int errors, int skipped, String cases)
      throws Exception {
    Path dir = Files.createDirectories(root.resolve(module).resolve("target/surefire-reports"));
    Files.writeString(dir.resolve("TEST-" + cls + ".xml"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" + cls + "\" time=\"2.5\" tests=\"" + tests
            + "\" errors=\"" + errors + "\" skipped=\"" + skipped + "\" failures=\"" + failures + "\">"
            + cases + "</testsuite>");
  }

  private List<String> summary(int mavenStatus) throws Exception {
    Path log = Files.createDirectories(root.resolve("target/lanes-test")).resolve("maven.log");
    Files.writeString(log, "[ERROR] Failed to execute goal compile on project lanes-core: Compilation failure\n");
    return TestRun.Summary.read(root, 0).lines(root, log, mavenStatus, "1 min 02 s", List.of("compile: boom"));
  }

  @Test
  void greenRunEndsWithPassedAndFailedCounts() throws Exception {
    report("lanes-core", "dev.lanes.ATest", 10, 0, 0, 2, "");
    report("lanes-serve", "dev.lanes.serve.BTest", 3, 0, 0, 0, "");
    List<String> lines = summary(0);
    assertThat(lines.getLast()).isEqualTo("11 passed, 0 failed, 2 skipped");
    assertThat(lines).anyMatch(l -> l.matches("lanes-core\\s+10\\s+0\\s+2\\s+3 s"));
    assertThat(lines).anyMatch(l -> l.startsWith("full log: target/lanes-test/maven.log"));
    assertThat(lines).noneMatch(l -> l.startsWith("failed tests"));
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThan(80));
  }

  @Test
  void failuresAndErrorsAreNamedAndCounted() throws Exception {
    report("lanes-core", "dev.lanes.ATest", 4, 1, 1, 0,
        "<testcase classname=\"dev.lanes.ATest\" name=\"ok\"/>"
            + "<testcase classname=\"dev.lanes.ATest\" name=\"wrong\"><failure message=\"expected 1&#10;but was 2\"/></testcase>"
            + "<testcase classname=\"dev.lanes.ATest\" name=\"threw\"><error type=\"java.lang.IllegalStateException\"/></testcase>");
    List<String> lines = summary(1);
    assertThat(lines.getLast()).isEqualTo("2 passed, 2 failed");
    assertThat(lines).contains("  lanes-core: dev.lanes.ATest.wrong — expected 1",
        "  lanes-core: dev.lanes.ATest.threw — java.lang.IllegalStateException");
  }

  @Test
  void aBuildThatFailsOutsideAnyTestIsNotCalledGreen() throws Exception {
    List<String> lines = summary(1);
    assertThat(lines.getLast()).isEqualTo("0 passed, 1 failed");
    assertThat(lines).contains("  compile: boom");
  }

  @Test
  void reportsLeftByAnEarlierRunAreNotCounted() throws Exception {
    report("lanes-core", "dev.lanes.ATest", 10, 0, 0, 0, "");
    Path old = root.resolve("lanes-core/target/surefire-reports/TEST-dev.lanes.ATest.xml");
    Files.setLastModifiedTime(old, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
    report("lanes-serve", "dev.lanes.serve.BTest", 3, 0, 0, 0, "");
    long since = System.currentTimeMillis() - 60_000;
    assertThat(TestRun.Summary.read(root, since).modules()).containsOnlyKeys("lanes-serve");
  }

  @Test
  void plainOutputIsOneLinePerModuleAndNoCarriageReturns() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TestRun run = new TestRun(new PrintStream(bytes, true, StandardCharsets.UTF_8), 0);
    run.accept("[INFO] Building lanes-core 0.1.0-SNAPSHOT                        [2/8]");
    run.accept("[INFO] --- surefire:3.6.1:test (default-test) @ lanes-core ---");
    run.accept("[INFO] Running dev.lanes.LifecycleTest");
    run.accept("[WARNING] something expected");
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).doesNotContain("\r").doesNotContain("WARNING");
    assertThat(out.lines()).singleElement().asString().startsWith("lanes test: [2/8] lanes-core");
  }

  @Test
  void terminalStatusLineFitsTheWidth() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TestRun run = new TestRun(new PrintStream(bytes, true, StandardCharsets.UTF_8), 40);
    run.accept("[INFO] Building lanes-core 0.1.0-SNAPSHOT                        [2/8]");
    run.accept("[INFO] Running dev.lanes.AVeryLongTestClassNameThatWouldWrapTest");
    for (String redraw : bytes.toString(StandardCharsets.UTF_8).split("\r")) {
      assertThat(redraw.length()).isLessThan(40);
    }
    assertThat(bytes.toString(StandardCharsets.UTF_8)).doesNotContain("\n");
  }

  @Test
  void invokerBuildsCountAsOneTestEach() throws Exception {
    Path dir = Files.createDirectories(root.resolve("lanes-it/target/invoker-reports"));
    Files.writeString(dir.resolve("BUILD-ok.xml"),
        "<?xml version=\"1.0\"?><build-job project=\"ok/pom.xml\" result=\"success\" time=\"6.3\"/>");
    Files.writeString(dir.resolve("BUILD-broken.xml"),
        "<?xml version=\"1.0\"?><build-job project=\"broken/pom.xml\" result=\"failure-build\" time=\"2\""
            + " buildlog=\"/x/build.log\"/>");
    List<String> lines = summary(1);
    assertThat(lines.getLast()).isEqualTo("1 passed, 1 failed");
    assertThat(lines).contains("  lanes-it: invoker build broken/pom.xml — failure-build (log: /x/build.log)");
  }
}
