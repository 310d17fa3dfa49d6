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
