package dev.lanes.serve.boot;

import dev.lanes.Lane;
import dev.lanes.Lanes;
import dev.lanes.TaskRecord;
import dev.lanes.serve.EndpointBook;
import dev.lanes.serve.LiveSeries;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Queue wait and run time per endpoint, in lanes-serve's {@link EndpointBook}, so that this
 * server's {@code /stats.json}, {@code POST /stats/reset} and {@code /series.json} are those of
 * the JDK-HttpServer demo and {@code ./lanes load} and the live page work on either.
 *
 * <p>The lanes cannot label these tasks when they are submitted: Tomcat hands its request
 * executor (lane {@code http}) a connection to process, not a path, and {@link
 * dev.lanes.reactor.LaneScheduler} submits Reactor's tasks unlabelled. So the handler marks the
 * thread it runs on with its endpoint ({@link #mark}), and a listener, which a lane calls on the
 * same thread right after the task ends ({@link Lane#onTask}), takes the marks and books the task
 * under them. The marks are thread-local: only the thread that runs a task writes and takes them. A task that marked nothing (Actuator, {@code /stats.json}, a bad request) is
 * not booked. A request refused by a full lane is booked only where the lane belongs to one
 * endpoint ({@code lanes} mode): the refusal happens on the submitting thread, which has no mark.
 *
 * <p>In {@code shared} mode on Tomcat a request waits in lane {@code http} before Tomcat has read
 * its path, so the page's "waiting now" per endpoint stays 0 there; lane {@code http}'s own queued
 * count and oldest queued age show that wait while it happens.
 */
@Configuration(proxyBeanMethods = false)
class DemoFigures {

  /** The endpoint stages, in the order /stats.json and the live page list them. */
  static final List<String> STAGES = List.of("fast", "slow", "cpu");

  /**
   * The endpoints whose handlers ran in the current thread's task so far, with when each started;
   * taken by the listener when the task ends. Usually one; more when Tomcat served several requests
   * of a kept-alive connection in one task (it reads the next request before giving the connection
   * back to its poller, if it has already arrived).
   */
  private static final ThreadLocal<List<Mark>> MARKS = ThreadLocal.withInitial(ArrayList::new);

  private record Mark(String stage, long nanos) {}

  /** Called by a handler on the thread that runs it, once it accepted the request. */
  static void mark(String stage) {
    MARKS.get().add(new Mark(stage, System.nanoTime()));
  }

  /** The lane that runs each endpoint in this set-up. */
  static Map<String, String> laneByStage(String server, String mode) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String stage : STAGES) {
      m.put(stage, "lanes".equals(mode) ? stage : "netty".equals(server) ? "shared" : "http");
    }
    return m;
  }

  @Bean(destroyMethod = "close")
  EndpointBook endpointBook(Lanes lanes, @Value("${demo.server}") String server, @Value("${demo.mode}") String mode) {
    return new EndpointBook(laneByStage(server, mode), System::nanoTime);
  }

  /** Books the followed lanes' tasks under the endpoints their handlers marked; closed before the book. */
  @Bean(destroyMethod = "close")
  Follower endpointFollower(Lanes lanes, EndpointBook book, @Value("${demo.server}") String server,
      @Value("${demo.mode}") String mode) {
    Map<String, String> laneByStage = laneByStage(server, mode);
    Map<Lane, Consumer<TaskRecord>> listeners = new LinkedHashMap<>();
    for (String laneName : new LinkedHashSet<>(laneByStage.values())) {
      // A lane that runs a single endpoint books its refusals under that endpoint.
      List<String> stages = laneByStage.entrySet().stream()
          .filter(e -> e.getValue().equals(laneName)).map(Map.Entry::getKey).toList();
      String only = stages.size() == 1 ? stages.getFirst() : null;
      Consumer<TaskRecord> listener = r -> book(book, r, only);
      Lane lane = lanes.lane(laneName);
      lane.onTask(listener);
      listeners.put(lane, listener);
    }
    return new Follower(Map.copyOf(listeners));
  }

  /** The listeners given to the lanes' task records, by lane. */
  record Follower(Map<Lane, Consumer<TaskRecord>> listeners) implements AutoCloseable {
    @Override
    public void close() {
      listeners.forEach(Lane::removeListener);
    }
  }

  /**
   * Books a task under the endpoints marked while it ran. When one task served several requests
   * (Tomcat's kept-alive connection), the first request waited the task's queue wait and the later
   * ones none (they were read as soon as the previous one ended); each request's run time is from
   * its mark (the task's start for the first) to the next mark or the task's end, so it includes
   * reading the next request's headers: approximate to that extent.
   */
  private static void book(EndpointBook book, TaskRecord r, String onlyStage) {
    if (r.outcome().isRejection()) {
      if (onlyStage != null) {
        book.record(onlyStage, r);
      }
      return;
    }
    List<Mark> marks = MARKS.get();
    if (marks.isEmpty()) {
      return;
    }
    List<Mark> ran = List.copyOf(marks);
    marks.clear();
    if (ran.size() == 1) {
      book.record(ran.getFirst().stage(), r);
      return;
    }
    for (int i = 0; i < ran.size(); i++) {
      long start = i == 0 ? r.startedNanos() : ran.get(i).nanos();
      long end = i + 1 < ran.size() ? ran.get(i + 1).nanos() : r.endedNanos();
      String stage = ran.get(i).stage();
      book.record(stage, new TaskRecord(r.taskId(), r.lane(), stage, r.thread(), i == 0 ? r.acceptedNanos() : start,
          start, end, i == 0 ? r.queueWaitNanos() : 0, Math.max(0, end - start), -1, r.outcome()));
    }
  }

  @Bean(destroyMethod = "close")
  LiveSeries liveSeries(Lanes lanes, EndpointBook book) {
    return new LiveSeries(List.copyOf(lanes.all()), STAGES, book, System::nanoTime).start();
  }
}
