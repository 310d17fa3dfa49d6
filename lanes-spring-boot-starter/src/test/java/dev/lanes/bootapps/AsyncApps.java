package dev.lanes.bootapps;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * Small applications for the {@code @Async} checks, in their own package so that the starter's
 * other test applications (which scan {@code dev.lanes.spring.boot}) never pick them up.
 */
final class AsyncApps {
  private AsyncApps() {}

  /** {@code @Async("db")}, as the README shows it. */
  public static class Users {
    @Async("db")
    public CompletableFuture<String> load() {
      return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }
  }

  /** A name that is no lane and no Executor bean (a typo, or a lane not declared). */
  public static class Reports {
    @Async("reports")
    public void run() {}
  }

  /** A name that is the application's own Executor bean, not a lane. */
  public static class Mail {
    @Async("mailExecutor")
    public void send() {}
  }

  /** The name from the configuration, as Spring resolves it at the call. */
  public static class Configured {
    @Async("${app.lane}")
    public CompletableFuture<String> where() {
      return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableAsync
  @Import(Configured.class)
  public static class WithAPlaceholder {}

  /** Forgot @EnableAsync. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Users.class)
  public static class WithoutEnableAsync {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableAsync
  @Import(Users.class)
  public static class WithEnableAsync {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableAsync
  @Import({Users.class, Reports.class})
  public static class WithAnUnknownName {}

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableAsync
  @Import({Users.class, Mail.class})
  public static class WithItsOwnExecutor {
    @Bean(destroyMethod = "close")
    java.util.concurrent.ExecutorService mailExecutor() {
      return Executors.newSingleThreadExecutor(r -> new Thread(r, "mail"));
    }
  }

}
