package dev.lanes.serve.boot;

import dev.lanes.Lanes;
import dev.lanes.reactor.LaneScheduler;
import dev.lanes.serve.EndpointBook;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The endpoints. Two controllers, one per way of running them:
 *
 * <ul>
 *   <li>{@link OnRequestThread} — Tomcat in {@code shared} mode: the handler runs on the request
 *       thread and returns a plain value, as in most Spring MVC applications. Tomcat's pool (lane
 *       "http") is the shared pool: a sleeping {@code /slow} holds a request thread, and a queued
 *       {@code /fast} waits in lane "http" before Actuator's {@code http.server.requests} starts
 *       its clock.
 *   <li>{@link OnLanes} — every other set-up: the handler returns a {@link Mono} whose work runs on
 *       a lane through a {@link LaneScheduler}: the endpoint's own lane (fast, slow, cpu) in
 *       {@code lanes} mode, lane "shared" on Netty in {@code shared} mode (never the event loop).
 * </ul>
 */
final class DemoController {
  private DemoController() {}

  /** Bad input and full lanes: a one-line reason. */
  abstract static class Errors {
    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    String badRequest(IllegalArgumentException e) {
      return e.getMessage() + "\n";
    }

    @ExceptionHandler(RejectedExecutionException.class)
    @ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
    String full(RejectedExecutionException e) {
      return e.getMessage() + "\n";
    }
  }

  @RestController
  @ConditionalOnExpression("'${demo.mode}' == 'shared' and '${demo.server}' != 'netty'")
  static class OnRequestThread extends Errors {

    @GetMapping("/fast")
    String fast() {
      DemoFigures.mark("fast");
      return Work.fast();
    }

    @GetMapping("/slow")
    String slow(@RequestParam long ms) throws InterruptedException {
      long sleep = Work.checkMs(ms);
      DemoFigures.mark("slow");
      return Work.slow(sleep);
    }

    @GetMapping("/cpu")
    String cpu(@RequestParam long ms) {
      long spin = Work.checkMs(ms);
      DemoFigures.mark("cpu");
      return Work.cpu(spin);
    }
  }

  @RestController
  @ConditionalOnExpression("!('${demo.mode}' == 'shared' and '${demo.server}' != 'netty')")
  static class OnLanes extends Errors {
    private final Lanes lanes;
    private final EndpointBook book;
    private final String mode;
    private final Map<String, Scheduler> schedulers = new ConcurrentHashMap<>();

    OnLanes(Lanes lanes, EndpointBook book, @Value("${demo.mode}") String mode) {
      this.lanes = lanes;
      this.book = book;
      this.mode = mode;
    }

    @GetMapping("/fast")
    Mono<String> fast() {
      return run("fast", Work::fast);
    }

    @GetMapping("/slow")
    Mono<String> slow(@RequestParam long ms) {
      long sleep = Work.checkMs(ms);
      return run("slow", () -> Work.slow(sleep));
    }

    @GetMapping("/cpu")
    Mono<String> cpu(@RequestParam long ms) {
      long spin = Work.checkMs(ms);
      return run("cpu", () -> Work.cpu(spin));
    }

    /**
     * Runs {@code work} on the endpoint's lane; the book counts the request as waiting from here
     * until it starts (or is refused, or cancelled).
     */
    private Mono<String> run(String endpoint, Callable<String> work) {
      String lane = "lanes".equals(mode) ? endpoint : "shared";
      Scheduler scheduler = schedulers.computeIfAbsent(lane, n -> LaneScheduler.of(lanes.lane(n)));
      return Mono.defer(() -> {
        long token = book.accepted(endpoint);
        return Mono.fromCallable(() -> {
              book.started(endpoint, token);
              DemoFigures.mark(endpoint);
              return work.call();
            })
            .subscribeOn(scheduler)
            .doFinally(signal -> book.started(endpoint, token));
      });
    }
  }
}
