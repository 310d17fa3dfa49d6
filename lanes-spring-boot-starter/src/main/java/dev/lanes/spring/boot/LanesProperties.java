package dev.lanes.spring.boot;

import dev.lanes.LaneKind;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code lanes.*}: the application's lanes, declared in configuration.
 *
 * <pre>
 * lanes.instances.db.kind=blocking
 * lanes.instances.db.concurrency=16
 * lanes.instances.db.queue-capacity=500
 * lanes.instances.partner-api.kind=virtual
 * lanes.instances.partner-api.concurrency=30
 * # Tomcat's requests run in lane "http"
 * lanes.server.lane=http
 * # &#64;Async without a name
 * lanes.task-executor=background
 * </pre>
 *
 * Every value is checked at startup; a bad one stops the application with the property, the value
 * and the reason. On a refresh, a lane setting whose value does not convert is bound as the
 * running lane has it, here as in the lane.
 */
@ConfigurationProperties("lanes")
public class LanesProperties {

  /** Whether lanes declared under lanes.instances are created. */
  private boolean enabled = true;

  /** The lanes, by name. Each lane is a bean of that name (inject with @Qualifier("name"), use in @Async("name")). */
  private Map<String, Instance> instances = new LinkedHashMap<>();

  /**
   * Name of a declared lane to be the application task executor (the "applicationTaskExecutor"
   * bean, used by @Async without a name). Unset: Spring Boot's own executor.
   */
  private String taskExecutor;

  /**
   * Priority shares, by name: one concurrency (say a database's connections) divided among
   * partitions in priority order, each served by the lane whose share names it.
   */
  private Map<String, Share> shares = new LinkedHashMap<>();

  private final Server server = new Server();

  private final Shutdown shutdown = new Shutdown();

  private final Readiness readiness = new Readiness();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Map<String, Instance> getInstances() {
    return instances;
  }

  public void setInstances(Map<String, Instance> instances) {
    this.instances = instances;
  }

  public Map<String, Share> getShares() {
    return shares;
  }

  public void setShares(Map<String, Share> shares) {
    this.shares = shares;
  }

  public String getTaskExecutor() {
    return taskExecutor;
  }

  public void setTaskExecutor(String taskExecutor) {
    this.taskExecutor = taskExecutor;
  }

  public Server getServer() {
    return server;
  }

  public Shutdown getShutdown() {
    return shutdown;
  }

  public Readiness getReadiness() {
    return readiness;
  }

  /** What to do with a task that arrives when a lane's queue is full. */
  public enum Overflow {
    /** Refuse it with LaneRejectedException (the default). */
    REJECT,
    /** Run it on the submitting thread. */
    CALLER_RUNS,
    /** Block the submitter until there is room, up to block-timeout, then refuse. */
    BLOCK_CALLER,
    /** Drop the oldest queued task (its future is cancelled, the drop counted). */
    DISCARD_OLDEST
  }

  /** One lane. */
  public static class Instance {

    /** Kind of lane: cpu (platform threads, default = processors), blocking (platform threads) or virtual (capped virtual threads). Required. */
    private LaneKind kind;

    /** How many tasks run at once: the platform threads of a cpu or blocking lane, the virtual threads running at once in a virtual lane (required for blocking and virtual; cpu defaults to the number of processors). */
    private Integer concurrency;

    /** Removed: the setting is called concurrency for every kind of lane. Setting it stops startup with a message that says so. */
    private Integer threads;

    /** How many tasks may wait beyond the running ones (default 10000). */
    private Integer queueCapacity;

    /** What to do when the queue is full. */
    private Overflow overflow = Overflow.REJECT;

    /** With overflow=block-caller: how long a submitter may wait for room before the task is refused (required then). */
    private Duration blockTimeout;

    /** Whether the platform threads are daemon threads (a non-daemon lane keeps the JVM alive until closed). */
    private boolean daemon = false;

    /** Name of a LaneGate bean every task of this lane passes before it starts, e.g. a lanes-redis SharedCap (the lane is closed before it). */
    private String gate;

    /** The partition of priority shares whose gate every task of this lane passes, as share/partition (e.g. db/checkout, declared under lanes.shares); not with gate. */
    private String share;

    /** The lane is SATURATED when its queue wait exceeds this many times its mean run time over the saturation window (default 1). Not with fixed-wait-threshold. */
    private Double waitToRunRatio;

    /** The lane is SATURATED when its queue wait exceeds this, whatever the run time (instead of wait-to-run-ratio). */
    private Duration fixedWaitThreshold;

    /** Sliding window of the saturation figures (default 5s). */
    private Duration saturationWindow;

    /** Waits below this never make the lane saturated (default 1ms). */
    private Duration saturationMinWait;

    /** How long the saturation (or rejection) condition must hold before the health worsens (default 1s; set with exit-after). */
    private Duration enterAfter;

    /** How long the condition must stop holding before the health is OK again (default 2s; set with enter-after). */
    private Duration exitAfter;

    /** How long a starvation deadlock seen only through futures lanes did not make must hold before it is reported (default 200ms). */
    private Duration deadlockDetection;

    /** Shedding: new tasks are refused while queued tasks have waited longer than this for a whole shed-interval (off unless set, with shed-interval; CoDel's classic values are 5ms and 100ms). */
    private Duration shedTarget;

    /** Shedding: how long waits must stay above shed-target before new tasks are refused (set with shed-target). */
    private Duration shedInterval;

    /** Level of the log lines for the lane's health changes between OK, SATURATED and REJECTING: trace, debug, info (default), warning, error or off. Deadlocks are always logged at WARNING. */
    private System.Logger.Level healthLogLevel;

    public System.Logger.Level getHealthLogLevel() {
      return healthLogLevel;
    }

    public void setHealthLogLevel(System.Logger.Level healthLogLevel) {
      this.healthLogLevel = healthLogLevel;
    }

    public Double getWaitToRunRatio() {
      return waitToRunRatio;
    }

    public void setWaitToRunRatio(Double waitToRunRatio) {
      this.waitToRunRatio = waitToRunRatio;
    }

    public Duration getFixedWaitThreshold() {
      return fixedWaitThreshold;
    }

    public void setFixedWaitThreshold(Duration fixedWaitThreshold) {
      this.fixedWaitThreshold = fixedWaitThreshold;
    }

    public Duration getSaturationWindow() {
      return saturationWindow;
    }

    public void setSaturationWindow(Duration saturationWindow) {
      this.saturationWindow = saturationWindow;
    }

    public Duration getSaturationMinWait() {
      return saturationMinWait;
    }

    public void setSaturationMinWait(Duration saturationMinWait) {
      this.saturationMinWait = saturationMinWait;
    }

    public Duration getEnterAfter() {
      return enterAfter;
    }

    public void setEnterAfter(Duration enterAfter) {
      this.enterAfter = enterAfter;
    }

    public Duration getExitAfter() {
      return exitAfter;
    }

    public void setExitAfter(Duration exitAfter) {
      this.exitAfter = exitAfter;
    }

    public Duration getDeadlockDetection() {
      return deadlockDetection;
    }

    public void setDeadlockDetection(Duration deadlockDetection) {
      this.deadlockDetection = deadlockDetection;
    }

    public Duration getShedTarget() {
      return shedTarget;
    }

    public void setShedTarget(Duration shedTarget) {
      this.shedTarget = shedTarget;
    }

    public Duration getShedInterval() {
      return shedInterval;
    }

    public void setShedInterval(Duration shedInterval) {
      this.shedInterval = shedInterval;
    }

    public String getShare() {
      return share;
    }

    public void setShare(String share) {
      this.share = share;
    }

    public String getGate() {
      return gate;
    }

    public void setGate(String gate) {
      this.gate = gate;
    }

    public LaneKind getKind() {
      return kind;
    }

    public void setKind(LaneKind kind) {
      this.kind = kind;
    }

    public Integer getThreads() {
      return threads;
    }

    public void setThreads(Integer threads) {
      this.threads = threads;
    }

    public Integer getConcurrency() {
      return concurrency;
    }

    public void setConcurrency(Integer concurrency) {
      this.concurrency = concurrency;
    }

    public Integer getQueueCapacity() {
      return queueCapacity;
    }

    public void setQueueCapacity(Integer queueCapacity) {
      this.queueCapacity = queueCapacity;
    }

    public Overflow getOverflow() {
      return overflow;
    }

    public void setOverflow(Overflow overflow) {
      this.overflow = overflow;
    }

    public Duration getBlockTimeout() {
      return blockTimeout;
    }

    public void setBlockTimeout(Duration blockTimeout) {
      this.blockTimeout = blockTimeout;
    }

    public boolean isDaemon() {
      return daemon;
    }

    public void setDaemon(boolean daemon) {
      this.daemon = daemon;
    }
  }

  /** One set of priority shares (lanes-shares' PriorityShares). */
  public static class Share {
    /** The most tasks of all its partitions running at once (1 to 1,000,000). Required. */
    private Integer total;

    /** How long a partition must be idle before others may borrow its guaranteed permits (default 100ms). */
    private Duration lendAfterIdle;

    /** How long a permit reserved for a woken worker waits for it before it is given back (default 50ms). */
    private Duration claimTimeout;

    /** The partitions, highest priority first (the order they are declared in), by name. At least one. */
    private Map<String, Partition> partitions = new LinkedHashMap<>();

    public Integer getTotal() {
      return total;
    }

    public void setTotal(Integer total) {
      this.total = total;
    }

    public Duration getLendAfterIdle() {
      return lendAfterIdle;
    }

    public void setLendAfterIdle(Duration lendAfterIdle) {
      this.lendAfterIdle = lendAfterIdle;
    }

    public Duration getClaimTimeout() {
      return claimTimeout;
    }

    public void setClaimTimeout(Duration claimTimeout) {
      this.claimTimeout = claimTimeout;
    }

    public Map<String, Partition> getPartitions() {
      return partitions;
    }

    public void setPartitions(Map<String, Partition> partitions) {
      this.partitions = partitions;
    }
  }

  /** One partition of priority shares. */
  public static class Partition {
    /** Its guaranteed part of the total while it is active: > 0 and ≤ 1, the partitions' shares summing to ≤ 1 (floor(share × total) permits, at least 1). Required. */
    private Double share;

    public Double getShare() {
      return share;
    }

    public void setShare(Double share) {
      this.share = share;
    }
  }

  /** The embedded web server. */
  public static class Server {
    /** Name of a declared lane that runs the embedded Tomcat's requests (its queue wait is the requests' wait for a thread). Unset: Tomcat's own pool. */
    private String lane;

    /** Deadline to start for every lane task a request's thread submits (e.g. through @Async): a task still queued this long after the request came in never starts (EXPIRED). Unset: none. */
    private Duration requestDeadline;

    public String getLane() {
      return lane;
    }

    public void setLane(String lane) {
      this.lane = lane;
    }

    public Duration getRequestDeadline() {
      return requestDeadline;
    }

    public void setRequestDeadline(Duration requestDeadline) {
      this.requestDeadline = requestDeadline;
    }
  }

  /** Application shutdown. */
  public static class Shutdown {
    /** How long shutdown waits for the lanes' accepted tasks to finish; then tasks that never started are returned by shutdownNow and logged. */
    private Duration awaitTermination = Duration.ofSeconds(30);

    public Duration getAwaitTermination() {
      return awaitTermination;
    }

    public void setAwaitTermination(Duration awaitTermination) {
      this.awaitTermination = awaitTermination;
    }
  }

  /** The application's readiness (Kubernetes' readiness probe), never its liveness. */
  public static class Readiness {
    /** When a lane has been REJECTING this long, the application refuses traffic (readiness REFUSING_TRAFFIC) until no lane is; unset: lanes never change readiness. */
    private Duration rejectingFor;

    public Duration getRejectingFor() {
      return rejectingFor;
    }

    public void setRejectingFor(Duration rejectingFor) {
      this.rejectingFor = rejectingFor;
    }
  }
}
