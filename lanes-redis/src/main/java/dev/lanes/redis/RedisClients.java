package dev.lanes.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A Lettuce client as lanes-redis uses one: its own two I/O threads (Lettuce's minimum, plenty for
 * a few calls per task), every call and connect bounded by {@code callTimeout}, commands refused at
 * once while disconnected, and reconnection every 100 ms (Lettuce's default backoff of up to 30 s
 * would delay recovery after an outage). Not shared: {@link #close} ends its threads.
 */
record RedisClients(ClientResources resources, RedisClient client) {

  static RedisClients create(String uri, Duration callTimeout) {
    ClientResources resources = ClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
        .build();
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(callTimeout);
    RedisClient client = RedisClient.create(resources, redisUri);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(callTimeout))
        .socketOptions(SocketOptions.builder().connectTimeout(callTimeout).build())
        .build());
    return new RedisClients(resources, client);
  }

  /** Shuts the client and its threads down, waiting a few seconds at most. */
  void close() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
