package dev.lanes.spring.boot;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A small application as users write them: a controller and @Async services. */
@SpringBootApplication
@EnableAsync
public class TestApplication {

  @RestController
  static class WhereController {
    /** Which thread served the request. */
    @GetMapping("/where")
    String where() {
      return Thread.currentThread().getName();
    }
  }

  /**
   * {@code /hold} answers once the test lets it go: each request takes a permit of {@link #HELD}
   * on entering and waits (at most a minute) for one of {@link #GO}.
   */
  @RestController
  static class HoldController {
    static final Semaphore HELD = new Semaphore(0);
    static final Semaphore GO = new Semaphore(0);

    @GetMapping("/hold")
    String hold() throws InterruptedException {
      HELD.release();
      return GO.tryAcquire(1, TimeUnit.MINUTES) ? "let go" : "gave up";
    }
  }

  /**
   * {@code /db-in-request} calls the {@code @Async("db")} method and answers how its task ended:
   * "ran", or the lane's reason for not running it (under {@code lanes.server.request-deadline}).
   */
  @RestController
  static class DbInRequestController {
    private final AsyncWork work;

    DbInRequestController(AsyncWork work) {
      this.work = work;
    }

    @GetMapping("/db-in-request")
    String dbInRequest() throws Exception {
      return work.onDb().handle((v, e) -> {
        Throwable c = e;
        while (c != null && !(c instanceof dev.lanes.LaneRejectedException)) {
          c = c.getCause();
        }
        return e == null ? "ran" : c == null ? String.valueOf(e) : ((dev.lanes.LaneRejectedException) c).reason().name();
      }).get(1, TimeUnit.MINUTES);
    }
  }

  @Service
  public static class AsyncWork {
    @Async("db")
    public CompletableFuture<String> onDb() {
      return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }

    @Async
    public CompletableFuture<String> onDefault() {
      return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }
  }
}
