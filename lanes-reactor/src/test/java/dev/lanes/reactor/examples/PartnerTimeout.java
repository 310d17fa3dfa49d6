package dev.lanes.reactor.examples;

import dev.lanes.Lane;
import dev.lanes.reactor.LaneScheduler;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

public class PartnerTimeout {
  public static void main(String[] args) {
    try (Lane partner = Lane.blocking("partner", 4).build()) {
      String answer = Mono.fromCallable(PartnerTimeout::slowCall)
          .subscribeOn(LaneScheduler.of(partner))  // the call is a task of lane "partner"
          .timeout(Duration.ofMillis(100))         // timed on Reactor's parallel scheduler
          .onErrorReturn(TimeoutException.class, "fallback")
          .block();
      System.out.println(answer);  // the call's lane thread was interrupted: CANCELLED in the lane
    }
  }

  static String slowCall() throws InterruptedException {
    Thread.sleep(60_000);  // ends at once when interrupted
    return "answer";
  }
}
