package dev.lanes.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches one shared cap's holders and waiters at Redis (both read in one script, so each look is
 * one instant of Redis's) and finds, between two looks, any waiter granted while an older one (a
 * lower ticket) went on waiting. Runs on a thread of its own until {@link #stop()}, which joins it.
 */
final class GrantWatch {

  private static final String LOOK = "return {redis.call('ZRANGE', KEYS[1], 0, -1),"
      + " redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')}";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final String[] keys;
  private final Thread thread;
  private volatile boolean stopping;
  private final Map<String, Integer> grantsByInstance = new HashMap<>();
  private final List<String> passedOver = new ArrayList<>();
  private int looks;
  private int grants;
  private int passedOverCount;

  private GrantWatch(String uri, String lane) {
    client = RedisClient.create(uri);
    connection = client.connect();
    keys = new String[] {"lanes:{" + lane + "}:holders", "lanes:{" + lane + "}:waiters"};
    thread = new Thread(this::watch, "grant-watch");
  }

  static GrantWatch start(String uri, String lane) {
    GrantWatch w = new GrantWatch(uri, lane);
    w.thread.start();
    return w;
  }

  private record Look(Set<String> holders, Map<String, Double> waiters) {}

  @SuppressWarnings("unchecked")
  private Look look() {
    List<Object> both = connection.sync().eval(LOOK, ScriptOutputType.MULTI, keys);
    Set<String> holders = new HashSet<>((List<String>) both.get(0));
    List<String> flat = (List<String>) both.get(1);
    Map<String, Double> waiters = new HashMap<>();
    for (int i = 0; i < flat.size(); i += 2) {
      waiters.put(flat.get(i), Double.parseDouble(flat.get(i + 1)));
    }
    return new Look(holders, waiters);
  }

  private void watch() {
    Look before = look();
    while (!stopping) {
      LockSupport.parkNanos(Duration.ofMillis(2).toNanos()); // a sampling pace, not a wait
      Look now = look();
      compare(before, now);
      before = now;
    }
  }

  private synchronized void compare(Look before, Look now) {
    looks++;
    double youngestGranted = Double.NEGATIVE_INFINITY;
    String granted = null;
    for (Map.Entry<String, Double> w : before.waiters.entrySet()) {
      if (now.holders.contains(w.getKey())) {
        grants++;
        grantsByInstance.merge(instance(w.getKey()), 1, Integer::sum);
        if (w.getValue() > youngestGranted) {
          youngestGranted = w.getValue();
          granted = w.getKey();
        }
      }
    }
    for (Map.Entry<String, Double> w : before.waiters.entrySet()) {
      boolean stillWaiting = w.getValue().equals(now.waiters.get(w.getKey()));
      if (stillWaiting && w.getValue() < youngestGranted && passedOverCount++ < 10) {
        passedOver.add(granted + " (ticket " + youngestGranted + ") granted while " + w.getKey()
            + " (ticket " + w.getValue() + ") waited on");
      }
    }
  }

  /** A permit's or waiter's id is its instance's id, a colon and a number. */
  private static String instance(String id) {
    return id.substring(0, id.lastIndexOf(':'));
  }

  void stop() throws InterruptedException {
    if (!stopping) {
      stopping = true;
      thread.join();
      connection.close();
      client.shutdown();
    }
  }

  synchronized int grantsTo(String instancePrefix) {
    return grantsByInstance.entrySet().stream().filter(e -> e.getKey().startsWith(instancePrefix))
        .mapToInt(Map.Entry::getValue).sum();
  }

  /** Up to ten examples of a waiter granted while an older one waited on (empty when none). */
  synchronized List<String> passedOver() {
    return List.copyOf(passedOver);
  }

  @Override
  public synchronized String toString() {
    return "grants seen at Redis " + grants + " in " + looks + " looks, by instance "
        + grantsByInstance.values() + ", passed over " + passedOverCount;
  }
}
