package dev.lanes.spring.boot;

import java.util.concurrent.CompletableFuture;
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
