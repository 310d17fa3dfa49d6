package dev.lanes.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.lanes.agent.bootstrap.PoolBridge;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;

/**
 * The hook that counts Tomcat's requests apart from its pool's tasks: {@code
 * org.apache.catalina.connector.CoyoteAdapter.service(Request, Response)}, matched by name, where
 * every protocol's processor (HTTP/1.1, HTTP/2 streams, AJP) hands one request to the servlet
 * container, once per request.
 *
 * <p>A task of Tomcat's pool ({@code SocketProcessor}) handles one connection's readable socket and
 * may serve several requests of it: {@code Http11Processor.service} loops while the connection is
 * kept alive and the next request is already readable (sent while the previous one was answered,
 * or pipelined). So the pool's tasks are fewer than its requests, and the wait per task is not
 * the wait per request. The first request a task serves waited the task's queue wait; a later
 * one was read by the worker already running it, and waited for no thread (0). A task that served
 * no request (a connection closed, a request line read in part) counts as a task only. See {@link
 * AgentSink#requestStarted()}.
 *
 * <p>The advice is inlined into Tomcat's method; only the call to {@link PoolBridge} remains.
 */
final class TomcatHooks {
  static final String COYOTE_ADAPTER = "org.apache.catalina.connector.CoyoteAdapter";

  private TomcatHooks() {}

  static AgentBuilder apply(AgentBuilder builder) {
    return builder
        .type(named(COYOTE_ADAPTER))
        .transform((b, type, loader, module, domain) -> b
            .visit(Advice.to(RequestStarted.class).on(named("service").and(takesArguments(2))
                .and(takesArgument(0, named("org.apache.coyote.Request")))
                .and(takesArgument(1, named("org.apache.coyote.Response"))))));
  }

  static final class RequestStarted {
    @Advice.OnMethodEnter
    static void enter() {
      PoolBridge.requestStarted();
    }
  }
}
