package dev.lanes.spring.boot;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;

/**
 * The Tomcat lane's requests as meters, tagged {@code lane}: {@code lanes.request.wait} (count =
 * requests, total = their queue wait) and {@code lanes.request.run} (count = requests, total =
 * their run time). In Prometheus: {@code lanes_request_wait_seconds_count} and {@code _sum}, the
 * same names the agent uses for Tomcat's own pool. The lane's task meters count dispatches.
 */
final class TomcatRequestMeters implements MeterBinder {
  private final TomcatRequestFigures figures;

  TomcatRequestMeters(TomcatRequestFigures figures) {
    this.figures = figures;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    FunctionTimer.builder("lanes.request.wait", figures, TomcatRequestFigures::requests,
            TomcatRequestFigures::waitNanosTotal, TimeUnit.NANOSECONDS)
        .tag("lane", figures.lane())
        .description("Time the embedded Tomcat's requests waited for a thread of their lane (a "
            + "request read by a dispatch already running waited none); count = requests, since start")
        .register(registry);
    FunctionTimer.builder("lanes.request.run", figures, TomcatRequestFigures::requests,
            TomcatRequestFigures::runNanosTotal, TimeUnit.NANOSECONDS)
        .tag("lane", figures.lane())
        .description("Time the embedded Tomcat's requests ran in their lane; count = requests, since start")
        .register(registry);
  }
}
