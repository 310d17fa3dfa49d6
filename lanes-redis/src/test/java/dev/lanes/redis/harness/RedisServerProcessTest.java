package dev.lanes.redis.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerProcessTest {

  @Test
  void withoutABinaryItSaysInOneLineWhyAndHowToGetOne(@TempDir Path empty) {
    assertThatThrownBy(() -> RedisServerProcess.findBinary(Map.of("PATH", empty.toString())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("lanes-redis tests need a Redis server: no redis-server or valkey-server on the"
            + " PATH (./lanes test installs Debian's redis-server when run as root; else run"
            + " `apt-get install redis-server`, or set LANES_REDIS_SERVER)");
    assertThatThrownBy(() -> RedisServerProcess.findBinary(
        Map.of("LANES_REDIS_SERVER", empty.resolve("nothing").toString())))
        .hasMessageContaining("which is not an executable file");
  }

  @Test
  void aValkeyServerIsTakenWhenThereIsNoRedisServer(@TempDir Path bin) throws Exception {
    Path valkey = Files.createFile(bin.resolve("valkey-server"));
    assertThat(valkey.toFile().setExecutable(true)).isTrue();
    assertThat(RedisServerProcess.findBinary(Map.of("PATH", bin.toString())))
        .isEqualTo(valkey.toString());
  }

  @Test
  void startsEmptyOnLoopbackAndRestartsEmptyOnTheSamePort() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      assertThat(redis.version()).matches("\\d+\\.\\d+\\.\\d+ \\(.*\\)");
      RedisClient client = RedisClient.create(redis.uri());
      try {
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          c.sync().set("k", "v");
        }
        redis.stop();
        assertThat(redis.isRunning()).isFalse();
        redis.restart();
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          assertThat(c.sync().get("k")).isNull(); // no persistence: a restart loses every key
          assertThat(c.sync().configGet("bind")).containsEntry("bind", "127.0.0.1");
        }
      } finally {
        client.shutdown();
      }
    }
  }
}
