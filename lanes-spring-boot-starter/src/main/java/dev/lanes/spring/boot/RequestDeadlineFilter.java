package dev.lanes.spring.boot;

import dev.lanes.TaskDeadline;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.time.Duration;

/**
 * {@code lanes.server.request-deadline}: each request's thread holds a {@link TaskDeadline} while
 * the request is handled, so every lane task it submits ({@code @Async} methods it calls, a lane's
 * {@code submit}) must start within that time of the request's arrival at this filter, or never.
 * Work submitted after the handler returned (an async request's later stages, on other threads)
 * is not covered. Stateless: one instance serves every request.
 */
final class RequestDeadlineFilter implements Filter {
  static final String PROPERTY = "lanes.server.request-deadline";

  private final Duration deadline;

  RequestDeadlineFilter(Duration deadline) {
    if (deadline.isNegative() || deadline.isZero()) {
      throw new LanesPropertyException(PROPERTY, deadline,
          "must be positive: a request's lane tasks would all be refused as EXPIRED");
    }
    this.deadline = deadline;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    try (TaskDeadline d = TaskDeadline.startWithin(deadline)) {
      chain.doFilter(request, response);
    }
  }
}
