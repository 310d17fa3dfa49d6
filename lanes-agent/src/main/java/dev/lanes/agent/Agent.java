package dev.lanes.agent;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.lanes.agent.bootstrap.PoolBridge;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

/**
 * The running agent: its parts, its hooks installed, its one thread started. Loaded only after
 * {@link LanesAgent} put the bridge in the bootstrap class loader.
 */
final class Agent {
  private static volatile Agent running;

  final AgentOptions options;
  final StampTable stamps;
  final Pools pools;
  final AgentSink sink;
  final Warnings warnings = new Warnings();
  final Watchdog watchdog;
  final PoolResize resize;
  final long startNanos = System.nanoTime();

  private Agent(AgentOptions options) {
    this.options = options;
    this.stamps = new StampTable(options.maxStamps);
    this.pools = new Pools(options.maxPools, options.sample);
    this.sink = new AgentSink(stamps, pools, options.sample);
    this.watchdog = new Watchdog(pools, stamps, options, warnings);
    this.resize = new PoolResize(pools);
  }

  static Agent running() {
    return running;
  }

  static synchronized Agent start(AgentOptions options, Instrumentation inst) {
    if (running != null) {
      return running;
    }
    Agent agent = new Agent(options);
    agent.openConcurrentPackage(inst);
    PoolBridge.sink = agent.sink; // before the hooks: code retransformed now reports at once
    agent.install(inst);
    PoolBridge.controller = agent::command;
    agent.checkHooks();
    if (options.port >= 0) {
      try {
        LiveSeries series = new LiveSeries(System.nanoTime());
        MetricsEndpoint endpoint = new MetricsEndpoint(options.port, agent.pools, series);
        agent.watchdog.serve(endpoint, series);
        System.err.println("lanes-agent: Prometheus metrics on http://127.0.0.1:" + endpoint.port()
            + "/metrics, the live page on http://127.0.0.1:" + endpoint.port() + "/");
      } catch (java.io.IOException e) {
        System.err.println("lanes-agent: could not listen on 127.0.0.1:" + options.port + " (" + e
            + "); no /metrics, the pools are still measured");
      }
    }
    agent.watchdog.start();
    try {
      agent.watchdog.answer(ControlChannel.open(agent::answer));
    } catch (IOException | RuntimeException e) {
      System.err.println("lanes-agent: no control channel (" + e + "); ./lanes attach --table"
          + " loads the agent again for each query and --set is unavailable");
    }
    if (options.tableAtExit || options.tableFile != null) {
      Runtime.getRuntime().addShutdownHook(new Thread(agent::atExit, "lanes-agent-exit"));
    }
    running = agent;
    return agent;
  }

  /**
   * Opens {@code java.util.concurrent} to the agent (so the deadlock check can read which
   * CompletableFuture a thread waits on) and, as lanes-core loads, to lanes-core (so a lane's own
   * deadlock proof works without {@code --add-opens}). The agent lives in the class path's unnamed
   * module, so the application's class path gets the same access.
   */
  private void openConcurrentPackage(Instrumentation inst) {
    Module base = Object.class.getModule();
    try {
      inst.redefineModule(base, Set.of(), Map.of(),
          Map.of("java.util.concurrent", Set.of(Agent.class.getModule())), Set.of(), Map.of());
    } catch (RuntimeException e) {
      warnings.warnOnce(Warnings.Kind.INSTRUMENTATION, "opens", "", "could not open"
          + " java.util.concurrent to the agent (" + e + "); a deadlock through"
          + " CompletableFuture.join cannot be proven", "");
    }
    inst.addTransformer(new ClassFileTransformer() {
      @Override public byte[] transform(Module module, ClassLoader loader, String className,
          Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
        if (redefined == null && "dev/lanes/ForeignFutures".equals(className)) {
          try {
            inst.redefineModule(base, Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(module)), Set.of(), Map.of());
          } catch (RuntimeException e) {
            // lanes then explains the missing flag itself, as without the agent
          }
        }
        return null;
      }
    });
  }

  private void install(Instrumentation inst) {
    TypeDescription bridge = TypePool.Default
        .of(ClassFileLocator.ForClassLoader.of(Agent.class.getClassLoader()))
        .describe(PoolBridge.class.getName()).resolve();
    MethodDescription.InDefinedShape run = bridge.getDeclaredMethods()
        .filter(named("run").and(takesArguments(2))).getOnly();
    // Byte Buddy's Nexus (for a self-initialising strategy the agent does not use) would touch
    // sun.misc.Unsafe, which JDK 24+ warns about. The property's name is relocated with Byte Buddy
    // (net.bytebuddy.* would not reach it); it is set only while the agent builds its hooks.
    String nexus = "net.bytebuddy.nexus.disabled";
    String before = System.getProperty(nexus);
    System.setProperty(nexus, "true");
    AgentBuilder builder = new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
        .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
        // The bridge's class file is found in the agent jar whoever loads the pool's class (the
        // bootstrap search path gained it through a temporary jar that a type pool may not read).
        .with(new AgentBuilder.LocationStrategy.Compound(
            AgentBuilder.LocationStrategy.ForClassLoader.STRONG,
            new AgentBuilder.LocationStrategy.Simple(
                ClassFileLocator.ForClassLoader.of(Agent.class.getClassLoader()))))
        .with(new Failures(warnings, options.verbose))
        .ignore(nameStartsWith("dev.lanes.agent.").or(nameStartsWith("net.bytebuddy.")))
        .assureReadEdgeTo(inst, PoolBridge.class);
    builder = ThreadPoolHooks.apply(builder, run, options.attached);
    builder = NettyHooks.apply(builder);
    builder = TomcatHooks.apply(builder);
    builder = ForkJoinHooks.apply(builder, bridge);
    try {
      builder.installOn(inst);
    } finally {
      if (before == null) {
        System.clearProperty(nexus);
      } else {
        System.setProperty(nexus, before);
      }
    }
  }

  /**
   * Runs one task on a private thread pool and one on a private fork-join pool to see the hooks
   * work (Byte Buddy reports a substitution that matched nothing as a success): for a family whose
   * hooks do not, says so once; those pools then go unmeasured.
   */
  private void checkHooks() {
    ThreadPoolExecutor probe = new ThreadPoolExecutor(0, 1, 0, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "lanes-agent");
          t.setDaemon(true);
          return t;
        });
    boolean seen = false;
    try {
      probe.submit(() -> { }).get(10, TimeUnit.SECONDS);
      // started() binds the worker's slot before the task runs; get() may return before ended().
      seen = !pools.recordFor(probe, false).slots.isEmpty();
    } catch (Exception e) {
      seen = false;
    } finally {
      endProbe(probe);
    }
    if (!seen) {
      warnings.warnOnce(Warnings.Kind.INSTRUMENTATION, "runWorker", "",
          "ThreadPoolExecutor.runWorker could not be instrumented on this JDK ("
              + System.getProperty("java.version") + "); thread pools are not measured", "");
    }
    if (!forkJoinHooksWork()) {
      warnings.warnOnce(Warnings.Kind.INSTRUMENTATION, "topLevelExec", "",
          "ForkJoinPool's workers could not be instrumented on this JDK ("
              + System.getProperty("java.version") + "); fork-join pools and the common pool are"
              + " not measured", "");
    }
  }

  /**
   * Runs one task on a private fork-join pool (its one worker named {@code lanes-agent}, for the
   * moment it lives) and says whether the hooks timed it. Waits with a latch: a {@code get()}
   * from outside the pool may run the task itself, which the hooks rightly do not time.
   */
  private boolean forkJoinHooksWork() {
    java.util.concurrent.ForkJoinPool probe = new java.util.concurrent.ForkJoinPool(1, pool -> {
      java.util.concurrent.ForkJoinWorkerThread t =
          java.util.concurrent.ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
      t.setName("lanes-agent");
      return t;
    }, null, false);
    try {
      java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
      probe.execute(ran::countDown);
      return ran.await(10, TimeUnit.SECONDS)
          && !pools.recordFor(probe, false).slots.isEmpty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (RuntimeException e) {
      return false;
    } finally {
      endProbe(probe);
    }
  }

  /** Stops a probe pool, waits for its thread, and forgets it (it is the agent's, not the app's). */
  private void endProbe(java.util.concurrent.ExecutorService probe) {
    probe.shutdown();
    try {
      probe.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pools.forget(probe);
  }

  /** The commands of {@link PoolBridge#controller}. */
  String command(String command) {
    return switch (command) {
      case "table" -> table();
      case "tsv" -> PoolTable.tsv(PoolTable.rows(pools, System.nanoTime()));
      default -> "lanes-agent: unknown command \"" + command + "\" (table, tsv)";
    };
  }

  /** The requests of {@link ControlChannel}: {@code table}, {@code tsv}, {@code set POOL k=v...}. */
  ControlChannel.Answer answer(String[] words) {
    switch (words[0]) {
      case "table", "tsv" -> {
        return new ControlChannel.Answer(true, command(words[0]));
      }
      case "set" -> {
        if (words.length < 2) {
          return new ControlChannel.Answer(false, "set needs a pool's name");
        }
        try {
          Map<String, Integer> settings = PoolResize.settings(List.of(words).subList(2, words.length));
          return new ControlChannel.Answer(true, resize.apply(words[1], settings, "lanes attach") + "\n");
        } catch (PoolResize.Refused e) {
          return new ControlChannel.Answer(false, e.getMessage());
        }
      }
      default -> {
        return new ControlChannel.Answer(false, "lanes-agent: unknown request \"" + words[0]
            + "\" (table, tsv, set)");
      }
    }
  }

  /** The text table, then the sizes changed through {@code ./lanes attach --set}, if any. */
  String table() {
    long now = System.nanoTime();
    List<PoolTable.Row> rows = PoolTable.rows(pools, now);
    long tasks = rows.stream().mapToLong(r -> r.s().ended()).sum();
    StringBuilder text = new StringBuilder(PoolTable.text(rows, String.format(Locale.ROOT,
        "lanes-agent: %d pools, %,d tasks in %.1f s%s", rows.size(), tasks,
        (now - startNanos) / 1e9,
        options.sample > 1 ? ", timed 1 task in " + options.sample + " (sampled)" : ""))); // (not ProcessHandle.current(): it makes the JDK's reaper pool)
    for (String change : resize.changes()) {
      text.append(change.replaceFirst("^lanes-agent: ", "changed: ")).append('\n');
    }
    return text.toString();
  }

  private void atExit() {
    watchdog.stop();
    String text = table();
    if (options.tableAtExit) {
      System.err.print(text);
    }
    if (options.tableFile != null) {
      String out = options.tableFile.toString().endsWith(".tsv")
          ? PoolTable.tsv(PoolTable.rows(pools, System.nanoTime())) : text;
      try {
        Files.writeString(options.tableFile, out);
      } catch (IOException e) {
        System.err.println("lanes-agent: could not write the table to " + options.tableFile + ": " + e);
      }
    }
  }

  /** Names each class Byte Buddy could not instrument, once; the class is left as it was. */
  private static final class Failures extends AgentBuilder.Listener.Adapter {
    private final Warnings warnings;
    private final boolean verbose;

    Failures(Warnings warnings, boolean verbose) {
      this.warnings = warnings;
      this.verbose = verbose;
    }

    @Override public void onError(String typeName, ClassLoader classLoader, JavaModule module,
        boolean loaded, Throwable throwable) {
      warnings.warnOnce(Warnings.Kind.INSTRUMENTATION, typeName, "", "could not instrument "
          + typeName + " (" + throwable + "); it is left as it was and its pools are not measured", "");
    }

    @Override public void onTransformation(TypeDescription type, ClassLoader classLoader,
        JavaModule module, boolean loaded, net.bytebuddy.dynamic.DynamicType dynamicType) {
      if (verbose) {
        System.err.println("lanes-agent: instrumented " + type.getName());
      }
    }
  }
}
