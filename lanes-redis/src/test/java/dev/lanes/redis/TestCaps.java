package dev.lanes.redis;

import java.time.Duration;

/**
 * Shared caps for the tests on a real Redis that are not about Redis being lost. On a busy machine
 * a call's round trip (Lettuce's threads, then redis-server, both competing for a core) can pass
 * the default 500 ms call timeout; fail-fast then takes Redis as lost and refuses queued tasks
 * (seen beside a CPU hog: {@code KeptPermitTest} had a task refused at the gate). So these caps
 * give a call {@link #CALL_TIMEOUT}, with a lease long enough to allow it. Outages are {@code
 * RedisOutageTest}'s, with timeouts of its own.
 */
final class TestCaps {
  /** How long a Redis call may take before the cap counts Redis as lost. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  /** A lease over three call timeouts, as the cap requires. */
  static final Duration LEASE = Duration.ofSeconds(20);

  private TestCaps() {}

  static SharedCap.Builder builder(String name, String redisUri) {
    return SharedCap.builder(name, redisUri).lease(LEASE).callTimeout(CALL_TIMEOUT);
  }
}
