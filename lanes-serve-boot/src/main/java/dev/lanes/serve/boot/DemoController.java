package dev.lanes.serve.boot;

import dev.lanes.Lanes;
import dev.lanes.reactor.LaneScheduler;
import dev.lanes.spring.boot.LanesEndpoint;
import java.util.LinkedHashMap;
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

  /** Every lane's figures (as /actuator/lanes), with the set-up. */
  static Map<String, Object> stats(LanesEndpoint lanes, String server, String mode) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("server", server);
    out.put("mode", mode);
    out.put("lanes", lanes.lanes());
    return out;
  }

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
    private final LanesEndpoint lanes;
    private final String server;

    OnRequestThread(LanesEndpoint lanes, @Value("${demo.server}") String server) {
      this.lanes = lanes;
      this.server = server;
    }

    @GetMapping("/fast")
    String fast() {
      return Work.fast();
    }

    @GetMapping("/slow")
    String slow(@RequestParam int ms) throws InterruptedException {
      return Work.slow(Work.checkMs(ms));
    }

    @GetMapping("/cpu")
    String cpu(@RequestParam int ms) {
      return Work.cpu(Work.checkMs(ms));
    }

    @GetMapping(value = "/stats.json", produces = "application/json")
    Map<String, Object> stats() {
      return DemoController.stats(lanes, server, "shared");
    }
  }

  @RestController
  @ConditionalOnExpression("!('${demo.mode}' == 'shared' and '${demo.server}' != 'netty')")
  static class OnLanes extends Errors {
    private final Lanes lanes;
    private final LanesEndpoint lanesEndpoint;
    private final String server;
    private final String mode;
    private final Map<String, Scheduler> schedulers = new ConcurrentHashMap<>();

    OnLanes(
        Lanes lanes,
        LanesEndpoint lanesEndpoint,
        @Value("${demo.server}") String server,
        @Value("${demo.mode}") String mode) {
      this.lanes = lanes;
      this.lanesEndpoint = lanesEndpoint;
      this.server = server;
      this.mode = mode;
    }

    @GetMapping("/fast")
    Mono<String> fast() {
      return run("fast", Work::fast);
    }

    @GetMapping("/slow")
    Mono<String> slow(@RequestParam int ms) {
      int sleep = Work.checkMs(ms);
      return run("slow", () -> Work.slow(sleep));
    }

    @GetMapping("/cpu")
    Mono<String> cpu(@RequestParam int ms) {
      int spin = Work.checkMs(ms);
      return run("cpu", () -> Work.cpu(spin));
    }

    @GetMapping(value = "/stats.json", produces = "application/json")
    Map<String, Object> stats() {
      return DemoController.stats(lanesEndpoint, server, mode);
    }

    private Mono<String> run(String endpoint, Callable<String> work) {
      String lane = "lanes".equals(mode) ? endpoint : "shared";
      return Mono.fromCallable(work)
          .subscribeOn(schedulers.computeIfAbsent(lane, n -> LaneScheduler.of(lanes.lane(n))));
    }
  }
}
