package dev.lanes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Run by {@link NoOpensTest} in a JVM without {@code --add-opens java.base/java.util.concurrent}:
 * an application whose lanes are healthy (busy, idle, nested waits that always find a free
 * worker) and never drop a task; prints how many of lanes' log lines mention the flag.
 */
public final class QuietStartProbe {
  private QuietStartProbe() {}

  public static void main(String[] args) throws Exception {
    List<String> mentions = new CopyOnWriteArrayList<>();
    Logger.getLogger("dev.lanes").addHandler(new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getMessage() != null && r.getMessage().contains("add-opens")) {
          mentions.add(r.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
    int rounds = Integer.parseInt(args[0]);
    try (Lane blocking = Lane.blocking("quiet-blocking", 4).build();
        Lane virtual = Lane.virtual("quiet-virtual", 4).build()) {
      for (int r = 0; r < rounds; r++) {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (Lane lane : List.of(blocking, virtual)) {
          for (int i = 0; i < 2; i++) { // two parents: a worker is always free for each child
            fs.add(lane.submit(() -> CompletableFuture.supplyAsync(() -> "child", lane).join()));
            fs.add(CompletableFuture.runAsync(() -> {}, lane));
          }
        }
        for (CompletableFuture<?> f : fs) {
          f.get(30, TimeUnit.SECONDS);
        }
        ((LaneExecutor) blocking).checkHealth(); // workers going idle, seen by the analysis
      }
    }
    System.out.println("mentions=" + mentions.size());
  }
}
