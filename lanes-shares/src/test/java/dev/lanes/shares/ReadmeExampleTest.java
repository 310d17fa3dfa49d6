package dev.lanes.shares;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testkit.ReadmeExample;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Compiles and runs the example of lanes-shares/README.md exactly as written. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsEveryOrderAndRefusesOnlyReports() throws Exception {
    String printed = ReadmeExample.run(Path.of("README.md"), "<!-- readme-example -->", "Example");
    System.out.print(printed); // into the test's output file, for whoever reads it
    Matcher m = Pattern.compile("^checkout: 30 done, 0 refused, got (\\d+) of (\\d+) permits freed"
        + " while below its share; reports: (\\d+) refused, (\\d+) borrowed$", Pattern.MULTILINE)
        .matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    int got = Integer.parseInt(m.group(1));
    int owed = Integer.parseInt(m.group(2));
    assertThat(owed).as("permits freed while checkout waited below its 7").isPositive();
    assertThat(got).isEqualTo(owed);
    assertThat(Integer.parseInt(m.group(3))).as("reports refused").isPositive();
    assertThat(Integer.parseInt(m.group(4))).as("reports borrowed before checkout came")
        .isPositive();
  }
}
