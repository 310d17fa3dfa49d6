package dev.lanes.agentdemo;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Work a request thread does after its answer left (an audit line, a cache write), on Spring MVC
 * only, when the request asks for it with {@code afterMs=N}: the answer is flushed to the caller,
 * then the thread sleeps N ms before it is free. It wraps Spring's {@code http.server.requests}
 * filter, so that metric does not hold it, and neither does the caller's latency. Meanwhile a
 * caller on a kept-alive connection may send its next request, which the same task then reads and
 * serves (the agent's requests per task, lab E14).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class AfterAnswer {
  static final String PARAMETER = "afterMs";
  /** Largest {@code afterMs} accepted; more answers 400 from the filter. */
  static final int MAX_AFTER_MS = 1_000;

  @Bean
  FilterRegistrationBean<Filter> afterAnswerFilter() {
    FilterRegistrationBean<Filter> bean = new FilterRegistrationBean<>(new AfterAnswerFilter());
    bean.setOrder(Ordered.HIGHEST_PRECEDENCE); // outside Spring's observation filter (+1)
    return bean;
  }

  /** The filter itself; see {@link AfterAnswer}. */
  static final class AfterAnswerFilter implements Filter {
    @Override public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      String value = request.getParameter(PARAMETER);
      int ms;
      try {
        ms = value == null ? 0 : Integer.parseInt(value);
      } catch (NumberFormatException e) {
        ms = -1;
      }
      if (ms < 0 || ms > MAX_AFTER_MS) {
        ((jakarta.servlet.http.HttpServletResponse) response).sendError(400, PARAMETER
            + " must be 0.." + MAX_AFTER_MS + " ms, was " + value);
        return;
      }
      chain.doFilter(request, response);
      if (ms > 0) {
        response.flushBuffer();
        try {
          Thread.sleep(ms);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
