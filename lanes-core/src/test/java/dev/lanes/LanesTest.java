package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class LanesTest {
  private static final ThreadLocal<String> REQUEST_ID = new ThreadLocal<>();

  @Test
  void declaresLooksUpAndClosesLanesTogether() {
    Lanes lanes = Lanes.of(Lane.cpu("compute").concurrency(2), Lane.blocking("db", 3), Lane.virtual("api", 4));
    assertThat(lanes.names()).containsExactly("compute", "db", "api");
    assertThat(lanes.lane("db").kind()).isEqualTo(LaneKind.BLOCKING);
    assertThatThrownBy(() -> lanes.lane("cache"))
        .hasMessage("lanes: no lane named \"cache\"; known lanes: compute, db, api");
    lanes.close();
    assertThat(lanes.all()).allSatisfy(l -> assertThat(l.isTerminated()).isTrue());
  }

  @Test
  void duplicateNamesAreRefused() {
    assertThatThrownBy(() -> Lanes.of(Lane.blocking("db", 1), Lane.blocking("db", 2)))
        .hasMessage("lanes: two lanes are named \"db\"");
  }

  @Test
  void tableShowsEveryLaneWithFigures() throws Exception {
    try (Lanes lanes = Lanes.of(Lane.cpu("compute").concurrency(1).cpuTimeEveryTask(), Lane.virtual("api", 2))) {
      lanes.lane("compute").submit(() -> Work.spinMillis(2)).get();
      lanes.lane("api").submit(() -> 1).get();
      String table = lanes.table();
      assertThat(table).contains("lane", "wait p99", "run p99", "cpu p99", "rejected", "util");
      assertThat(table.lines().filter(l -> l.startsWith("compute"))).singleElement()
          .satisfies(l -> assertThat(l).contains("cpu").doesNotContain(" - "));
      assertThat(table.lines().filter(l -> l.startsWith("api"))).singleElement()
          .satisfies(l -> assertThat(l).contains("virtual"));
      assertThat(lanes.stats()).containsOnlyKeys("compute", "api");
    }
  }

  @Test
  void aThreadLocalIsCarriedToTheTaskAndDoesNotLeakIntoTheNext() throws Exception {
    try (Lanes lanes = Lanes.of(TaskDecorator.threadLocals(REQUEST_ID), Lane.blocking("one", 1), Lane.virtual("v", 1))) {
      for (String name : List.of("one", "v")) {
        Lane lane = lanes.lane(name);
        REQUEST_ID.set("req-42");
        String seen = lane.submit(REQUEST_ID::get).get();
        REQUEST_ID.remove();
        String next = lane.submit(REQUEST_ID::get).get();
        assertThat(seen).isEqualTo("req-42");
        assertThat(next).as("no leak into the next task on " + name).isNull();
      }
    }
  }

  @Test
  void lanesCanBeAddedAndRemovedWhileRunning() throws Exception {
    List<String> changes = new ArrayList<>();
    try (Lanes lanes = Lanes.of(Lane.blocking("a", 1))) {
      lanes.onAdded(l -> changes.add(l.name() + "+"));
      lanes.onRemoved(l -> changes.add(l.name() + "-"));
      Lane b = lanes.add(Lane.blocking("b", 1));
      assertThat(b.submit(() -> 5).get()).isEqualTo(5);
      assertThat(lanes.names()).containsExactly("a", "b");
      Lane removed = lanes.remove("a");
      assertThat(removed.isTerminated()).isTrue();
      assertThat(lanes.names()).containsExactly("b");
      assertThatThrownBy(() -> lanes.add(Lane.blocking("b", 1)))
          .hasMessage("lanes: a lane named \"b\" already exists");
    }
    assertThat(changes).containsExactly("b+", "a-");
  }

  @Test
  void everyKindWorksAsTheExecutorOfCompletableFutureChains() throws Exception {
    try (Lanes lanes = Lanes.of(Lane.cpu("c").concurrency(2), Lane.blocking("b", 2), Lane.virtual("v", 2))) {
      for (Lane lane : lanes.all()) {
        CompletableFuture<Integer> a = CompletableFuture.supplyAsync(() -> 20, lane);
        CompletableFuture<Integer> b = a.thenApplyAsync(x -> x + 1, lane)
            .thenApplyAsync(x -> {
              assertThat(Thread.currentThread().getName()).startsWith(lane.name() + "-");
              return x * 2;
            }, lane);
        CompletableFuture<Void> all = CompletableFuture.allOf(b, CompletableFuture.runAsync(() -> {}, lane));
        all.get();
        assertThat(b.get()).isEqualTo(42);
        CompletableFuture<Integer> failing = CompletableFuture.supplyAsync(() -> {
          throw new IllegalStateException("in chain");
        }, lane);
        CompletableFuture<String> recovered = failing.thenApplyAsync(x -> "no", lane)
            .exceptionallyAsync(e -> "recovered from " + e.getCause().getMessage(), lane);
        assertThat(recovered.get()).isEqualTo("recovered from in chain");
        // The lane's own futures compose the same way.
        assertThat(lane.submit(() -> 1).thenApplyAsync(x -> x + 1).get()).isEqualTo(2);
      }
    }
  }
}
