package dev.lanes.lab.support;

import dev.lanes.Lane;
import dev.lanes.LaneStats;
import dev.lanes.advisor.LabelWatch;
import dev.lanes.advisor.SizingAdvice;
import dev.lanes.advisor.SizingAdvisor;
import dev.lanes.TaskRecord;
import dev.lanes.lab.LabContext;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The mixed workload of E5 (and E9): CPU, file-IO and network tasks in equal parts, interleaved
 * as the source writing does (task i is file IO when i % 3 == 0, network when 1, CPU when 2),
 * all submitted at once, either to one shared lane or to a lane per kind. Labels are the kinds.
 */
public final class MixedWorkload {

  public static final List<String> KINDS = List.of("cpu", "file-io", "net-io");
  public static final int CPU_UNITS = 8;
  public static final int FILE_LINES = 2_000;
  public static final int NET_DELAY_MS = 30;

  /** The lab's advisor: the library's defaults, with recommendations capped at a concurrency of 256. */
  public static final SizingAdvisor ADVISOR = new SizingAdvisor(0.8, Duration.ofMillis(500), 50, 256);

  /** Thread counts of the three lanes. */
  public record Sizes(int cpu, int file, int net) {
    public int total() {
      return cpu + file + net;
    }
  }

  /** One run: wall time, every task's record, and each lane's stats and advice at the end. */
  public record Run(double totalMs, List<TaskRecord> records, Map<String, LaneStats> stats,
      Map<String, SizingAdvice> advice) {}

  private MixedWorkload() {}

  public static Sizes defaultSizes(int cores) {
    return new Sizes(cores, 4, 16);
  }

  /** Everything on one blocking lane named {@code <prefix>-shared} of {@code threads}. */
  public static Run onShared(LabContext ctx, String prefix, int threads, int perKind, TaskLog log) {
    Lane shared = lane(log, prefix + "-shared", threads, perKind * 3);
    return run(ctx, perKind, log, kind -> shared, List.of(shared));
  }

  /** Each kind on its own lane: {@code <prefix>-cpu} (a CPU lane), {@code -file-io}, {@code -net-io}. */
  public static Run onLanes(LabContext ctx, String prefix, Sizes sizes, int perKind, TaskLog log) {
    Lane cpu = log.follow(Lane.cpu(prefix + "-cpu").concurrency(sizes.cpu()).queueCapacity(perKind)
        .cpuTimeEveryTask().daemon(true).build());
    Lane file = lane(log, prefix + "-file-io", sizes.file(), perKind);
    Lane net = lane(log, prefix + "-net-io", sizes.net(), perKind);
    return run(ctx, perKind, log, kind -> switch (kind) {
      case "cpu" -> cpu;
      case "file-io" -> file;
      default -> net;
    }, List.of(cpu, file, net));
  }

  private static Lane lane(TaskLog log, String name, int threads, int queue) {
    return log.follow(Lane.blocking(name, threads).queueCapacity(queue)
        .cpuTimeEveryTask().daemon(true).build());
  }

  private static Run run(LabContext ctx, int perKind, TaskLog log,
      java.util.function.Function<String, Lane> route, List<Lane> lanes) {
    URI uri = ctx.server().uri("/mixed", NET_DELAY_MS);
    java.nio.file.Path dir = ctx.tempDir();
    java.net.http.HttpClient client = ctx.client();
    List<CompletableFuture<?>> futures = new ArrayList<>();
    long t0 = System.nanoTime();
    Map<String, LaneStats> stats = new LinkedHashMap<>();
    Map<String, SizingAdvice> advice = new LinkedHashMap<>();
    // Per-label W/C, so that the advice can flag a lane whose labels compute and wait.
    Map<String, LabelWatch> labels = new LinkedHashMap<>();
    for (Lane lane : lanes) {
      labels.put(lane.name(), LabelWatch.on(lane));
    }
    try {
      for (int i = 0; i < perKind * 3; i++) {
        String kind = KINDS.get(i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 0);
        int id = i;
        Callable<Object> body = switch (kind) {
          case "cpu" -> () -> Work.cpu(CPU_UNITS, ctx.seed() + id);
          case "file-io" -> () -> Work.fileIo(dir, "mixed-" + id, FILE_LINES);
          default -> () -> Work.http(client, uri);
        };
        futures.add(route.apply(kind).submit(kind, body));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
      for (Lane lane : lanes) {
        LaneStats s = lane.stats();
        stats.put(lane.name(), s);
        advice.put(lane.name(), ADVISOR.advise(s, ctx.cores(), labels.get(lane.name())));
      }
    } finally {
      lanes.forEach(Lane::close);
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    List<TaskRecord> mine = new ArrayList<>();
    for (Lane lane : lanes) {
      mine.addAll(log.of(lane.name()));
    }
    return new Run(ms, mine, stats, advice);
  }

  /** Queue-wait milliseconds of the records with one of {@code labels}. */
  public static List<Double> waits(List<TaskRecord> records, String... labels) {
    List<String> ls = List.of(labels);
    return records.stream().filter(r -> ls.contains(r.label())).map(TaskRecord::queueWaitMillis).toList();
  }

  /** Run milliseconds of the records with one of {@code labels}. */
  public static List<Double> runs(List<TaskRecord> records, String... labels) {
    List<String> ls = List.of(labels);
    return records.stream().filter(r -> ls.contains(r.label())).map(TaskRecord::runMillis).toList();
  }
}
