package dev.lanes.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The global permits of one shared cap, kept on Redis: three atomic Lua scripts (acquire, release,
 * renew) over a sorted set of holders and a sorted set of waiters. This is the low-level part that
 * {@link SharedCap} drives; it is public so that tests and the lab can measure it on its own.
 *
 * <p>Model. A permit is a member of the holders set whose score is its lease's expiry in
 * milliseconds on Redis's own clock ({@code TIME} inside the script, never the client's). Every
 * script first drops the holders whose lease has lapsed, so no permit outlives its lease by more
 * than the time until the next call (and none is counted once lapsed). A waiter is a member of the
 * waiters set scored by a ticket from a counter: the lowest ticket has waited longest. Whenever a
 * script finds fewer than {@code cap} holders (after a release, a lapse, or new waiters), it hands
 * the free permits to the oldest waiters, across every instance, and publishes each granted
 * waiter's id on the cap's grant channel, so that its instance starts the task without asking
 * again. A waiter that stops asking lapses after its own lease; instances must agree on the cap and
 * the lease (a handoff uses the ones the latest acquire wrote).
 *
 * <p>Calls. Every call is asynchronous (Lettuce on one Netty connection, commands pipelined in
 * order) and has a timeout ({@link #callTimeout}); while the connection is down, calls fail at
 * once instead of queueing. Scripts are sent by SHA and re-sent in full after Redis lost its script
 * cache (a restart). A reply never arrives on a caller's thread: callers must not block in the
 * stages they attach (they run on Lettuce's I/O thread).
 *
 * <p>Thread safety: every method may be called from any thread.
 */
public final class RedisPermits implements AutoCloseable, PermitStore {

  /**
   * What an acquire call answered.
   *
   * @param holders permits held across instances after the call
   * @param waiters waiters across instances after the call
   * @param granted per waiter id asked for, in order: whether it holds a permit now
   */
  public record Acquired(long holders, long waiters, List<Boolean> granted) {}

  /** What a renew call answered: holders and waiters now, and the ids that had to be put back. */
  public record Renewed(long holders, long waiters, List<String> reinstated) {}

  private static final Script ACQUIRE = Script.load("acquire.lua");
  private static final Script RELEASE = Script.load("release.lua");
  private static final Script RENEW = Script.load("renew.lua");

  private final String name;
  private final String[] keys;
  private final String channel;
  private final Duration callTimeout;
  private final RedisClients redis;
  private volatile StatefulRedisConnection<String, String> connection;
  private volatile StatefulRedisPubSubConnection<String, String> pubSub;

  /**
   * Permits for the cap named {@code name} on the Redis at {@code uri}. Connects lazily: call
   * {@link #connect()} (it may fail while Redis is down, and may be called again later).
   *
   * @param callTimeout the most any call may take, connecting included
   */
  public RedisPermits(String uri, String name, Duration callTimeout) {
    this.name = Objects.requireNonNull(name, "name");
    this.callTimeout = Objects.requireNonNull(callTimeout, "callTimeout");
    String prefix = "lanes:{" + name + "}:";
    this.keys = new String[] {prefix + "holders", prefix + "waiters", prefix + "waiter-expiry",
        prefix + "tickets", prefix + "settings", prefix + "settle"};
    this.channel = prefix + "granted";
    this.redis = RedisClients.create(uri, callTimeout);
  }

  public String name() {
    return name;
  }

  @Override
  public Duration callTimeout() {
    return callTimeout;
  }

  /**
   * Whether both connections (commands and grant notices) were made; Lettuce may be reconnecting
   * them now.
   */
  @Override
  public boolean connected() {
    return connection != null && pubSub != null;
  }

  /**
   * Connects if not yet connected (blocking, at most about {@link #callTimeout} per connection),
   * and subscribes {@code onGrant} to the grant notices of this cap: the id of every waiter (of any
   * instance) that a release, a renewal or an acquire handed a permit to. Notices are a fast path
   * only: one lost while the subscription reconnects is found by asking again. Lettuce reconnects
   * by itself afterwards.
   *
   * @throws io.lettuce.core.RedisException when Redis cannot be reached now
   */
  @Override
  public synchronized void connect(java.util.function.Consumer<String> onGrant) {
    if (connection == null) {
      connection = redis.client().connect();
    }
    if (pubSub == null) {
      StatefulRedisPubSubConnection<String, String> ps = redis.client().connectPubSub();
      ps.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String ch, String message) {
          onGrant.accept(message);
        }
      });
      ps.sync().subscribe(channel);
      pubSub = ps;
    }
  }

  /**
   * Asks for a permit for each of {@code waiterIds} (waiters of one instance); a waiter granted now
   * or later holds the permit under its own id. Asking again with the same id keeps the waiter's
   * place (and renews its waiter lease); asking again after a grant answers granted.
   */
  @Override
  public CompletionStage<Acquired> acquire(List<String> waiterIds, int cap, Duration lease,
      Duration waiterLease) {
    String[] args = new String[waiterIds.size() + 4];
    args[0] = String.valueOf(cap);
    args[1] = String.valueOf(lease.toMillis());
    args[2] = String.valueOf(waiterLease.toMillis());
    args[3] = channel;
    for (int i = 0; i < waiterIds.size(); i++) {
      args[i + 4] = waiterIds.get(i);
    }
    return eval(ACQUIRE, args).thenApply(reply -> {
      List<?> r = (List<?>) reply;
      List<Boolean> granted = new ArrayList<>(waiterIds.size());
      for (int i = 2; i < r.size(); i++) {
        granted.add(((Long) r.get(i)) == 1L);
      }
      return new Acquired((Long) r.get(0), (Long) r.get(1), List.copyOf(granted));
    });
  }

  /** Asks for one permit; see {@link #acquire(List, int, Duration, Duration)}. */
  public CompletionStage<Boolean> acquire(String waiterId, int cap, Duration lease,
      Duration waiterLease) {
    return acquire(List.of(waiterId), cap, lease, waiterLease).thenApply(a -> a.granted().get(0));
  }

  /** Releases permits and withdraws waiters; answers how many permits were released. */
  @Override
  public CompletionStage<Long> release(List<String> ids) {
    String[] args = new String[ids.size() + 1];
    args[0] = channel;
    for (int i = 0; i < ids.size(); i++) {
      args[i + 1] = ids.get(i);
    }
    // With the MULTI output type an integer reply arrives as a list of one.
    return eval(RELEASE, args)
        .thenApply(reply -> reply instanceof List<?> l ? (Long) l.get(0) : (Long) reply);
  }

  /** Renews the leases of {@code ids}, putting back any that had lapsed or were lost. */
  public CompletionStage<Renewed> renew(List<String> ids, Duration lease) {
    return renew(ids, lease, Duration.ZERO);
  }

  /**
   * Renews as {@link #renew(List, Duration)}; with a positive {@code settle}, no permit is handed
   * out to anyone for that long (an instance back from an outage lets the others put back the
   * permits of their running tasks first).
   */
  @Override
  public CompletionStage<Renewed> renew(List<String> ids, Duration lease, Duration settle) {
    String[] args = new String[ids.size() + 3];
    args[0] = String.valueOf(lease.toMillis());
    args[1] = channel;
    args[2] = String.valueOf(settle.toMillis());
    for (int i = 0; i < ids.size(); i++) {
      args[i + 3] = ids.get(i);
    }
    return eval(RENEW, args).thenApply(reply -> {
      List<?> r = (List<?>) reply;
      List<String> back = new ArrayList<>();
      for (Object o : (List<?>) r.get(2)) {
        back.add(o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : o.toString());
      }
      return new Renewed((Long) r.get(0), (Long) r.get(1), List.copyOf(back));
    });
  }

  private CompletableFuture<Object> eval(Script script, String... args) {
    StatefulRedisConnection<String, String> c = connection;
    if (c == null) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("not connected to Redis (cap \"" + name + "\")"));
    }
    RedisAsyncCommands<String, String> redis = c.async();
    CompletableFuture<Object> first =
        redis.<Object>evalsha(script.sha, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
    // After a restart Redis has forgotten the script: send it in full once (EVAL caches it again).
    return first.handle((reply, failure) -> {
      if (failure == null) {
        return CompletableFuture.completedFuture(reply);
      }
      if (String.valueOf(unwrap(failure).getMessage()).startsWith("NOSCRIPT")) {
        return redis.<Object>eval(script.source, ScriptOutputType.MULTI, keys, args)
            .toCompletableFuture();
      }
      return CompletableFuture.<Object>failedFuture(unwrap(failure));
    }).thenCompose(f -> f);
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof java.util.concurrent.CompletionException
        || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Closes the connections and the client's threads (waits for them, at most a few seconds). */
  @Override
  public synchronized void close() {
    if (pubSub != null) {
      pubSub.close();
    }
    if (connection != null) {
      connection.close();
    }
    redis.close();
  }

  private record Script(String source, String sha) {
    static Script load(String file) {
      try (InputStream in = RedisPermits.class.getResourceAsStream(file)) {
        if (in == null) {
          throw new IllegalStateException("lanes-redis: script " + file + " missing from the jar");
        }
        String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return new Script(source, sha1(source));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static String sha1(String text) {
      try {
        byte[] d = java.security.MessageDigest.getInstance("SHA-1")
            .digest(text.getBytes(StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(d);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
