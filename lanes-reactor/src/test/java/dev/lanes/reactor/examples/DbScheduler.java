package dev.lanes.reactor.examples;

import dev.lanes.Lane;
import dev.lanes.reactor.LaneScheduler;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

public class DbScheduler {
  public static void main(String[] args) {
    try (Lane db = Lane.blocking("db", 8).queueCapacity(500).build()) {
      Scheduler dbScheduler = LaneScheduler.of(db);
      String user = Mono.fromCallable(() -> load(42))
          .subscribeOn(dbScheduler)                          // runs as a lane task
          .block();
      List<Integer> ticks = Flux.range(1, 5)
          .delayElements(Duration.ofMillis(100), dbScheduler) // time operators work
          .collectList()
          .block();
      dbScheduler.dispose();   // stops the adapter; the lane keeps running (the try closes it)
      System.out.println(user + ", " + ticks + ", lane shut down: " + db.isShutdown());
    }
  }

  static String load(int id) {
    return "user " + id;
  }
}
