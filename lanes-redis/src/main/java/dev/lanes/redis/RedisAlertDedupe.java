package dev.lanes.redis;

import dev.lanes.alerts.AlertDedupe;
import dev.lanes.alerts.AlertKind;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * An {@link AlertDedupe} on Redis: the first instance to claim (lane, kind) holds key {@code
 * lanes:alerts:{<lane>}:<kind>} for the claim's hold, and only it sends that alert; it may claim
 * again while it holds the key (a follow-up, a later episode), others may once the key expired.
 * Give it to {@code LaneAlerts.builder().dedupe(…)}; {@code LaneAlerts.close()} closes it.
 *
 * <p>Each call takes at most the call timeout (1 s by default), connecting included; while Redis
 * cannot be reached a call fails at once (Lettuce reconnects in the background every 100 ms), and
 * {@code LaneAlerts} sends the alert anyway (fail open) and logs that once.
 */
public final class RedisAlertDedupe implements AlertDedupe, AutoCloseable {
  /** Claims (lane, kind) for ARGV[1] for ARGV[2] ms unless another instance holds it. */
  private static final String CLAIM = """
      local holder = redis.call('GET', KEYS[1])
      if holder == ARGV[1] then
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return 1
      end
      if holder then
        return 0
      end
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
      return 1
      """;

  private final String uri;
  private final String instance;
  private final RedisClients redis;
  private StatefulRedisConnection<String, String> connection; // guarded by this

  private RedisAlertDedupe(String uri, Duration callTimeout) {
    this.uri = uri;
    this.instance = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
    this.redis = RedisClients.create(uri, callTimeout);
  }

  /**
   * {@return a dedupe on the Redis at {@code redisUri}, calls timing out after 1 s; it connects
   * at its first claim}
   *
   * @param redisUri e.g. {@code redis://host:6379}
   */
  public static RedisAlertDedupe to(String redisUri) {
    return to(redisUri, Duration.ofSeconds(1));
  }

  /**
   * {@return a dedupe on the Redis at {@code redisUri}; it connects at its first claim}
   *
   * @param redisUri e.g. {@code redis://host:6379}
   * @param callTimeout the most a claim may take, connecting included (1 ms to 1 min)
   */
  public static RedisAlertDedupe to(String redisUri, Duration callTimeout) {
    Objects.requireNonNull(redisUri, "lanes alerts dedupe: redisUri must not be null");
    Objects.requireNonNull(callTimeout, "lanes alerts dedupe: callTimeout must not be null");
    if (callTimeout.compareTo(Duration.ofMillis(1)) < 0
        || callTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("lanes alerts dedupe: callTimeout must be between PT0.001S"
          + " and PT1M, was " + callTimeout);
    }
    RedisURI.create(redisUri); // a malformed URI is refused now, not at the first alert
    return new RedisAlertDedupe(redisUri, callTimeout);
  }

  /** @throws io.lettuce.core.RedisException when Redis cannot be reached or answer in time */
  @Override
  public boolean claim(String lane, AlertKind kind, Duration hold) {
    Long granted = connection().sync().eval(CLAIM, ScriptOutputType.INTEGER,
        new String[] {"lanes:alerts:{" + lane + "}:" + kind.name()}, instance,
        Long.toString(Math.max(1, hold.toMillis())));
    return granted != null && granted == 1L;
  }

  private synchronized StatefulRedisConnection<String, String> connection() {
    if (connection == null) {
      connection = redis.client().connect();
    }
    return connection;
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      connection.close();
    }
    redis.close();
  }

  @Override
  public String toString() {
    return "RedisAlertDedupe[" + RedisURI.create(uri).toURI().getHost() + ":"
        + RedisURI.create(uri).getPort() + "]";
  }
}
