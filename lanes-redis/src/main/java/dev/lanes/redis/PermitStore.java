package dev.lanes.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Where a {@link SharedCap} keeps its global permits: {@link RedisPermits} in production. Package
 * private, and only so that {@code SharedCapLincheckTest} can model-check the cap's own protocol
 * (kept permits, sweeps, quanta, withdrawal, close) against a permit store in memory, since a model
 * checker cannot drive network I/O. The methods are {@link RedisPermits}'s; see it for what each
 * call does.
 */
interface PermitStore extends AutoCloseable {

  Duration callTimeout();

  boolean connected();

  /** Connects if not connected; grant notices go to {@code onGrant}. Throws while Redis is away. */
  void connect(Consumer<String> onGrant);

  CompletionStage<RedisPermits.Acquired> acquire(List<String> waiterIds, int cap, Duration lease,
      Duration waiterLease);

  CompletionStage<Long> release(List<String> ids);

  CompletionStage<RedisPermits.Renewed> renew(List<String> ids, Duration lease, Duration settle);

  @Override
  void close();
}
