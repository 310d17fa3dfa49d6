package dev.lanes.agentdemo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A small Spring Boot application with no lanes code in it, for the lanes agent to measure (lab
 * E14): Spring MVC on Tomcat with 4 request threads, or, with {@code
 * --spring.profiles.active=reactive}, the same endpoints on WebFlux and Reactor Netty. Endpoints
 * ({@link DemoEndpoints}): {@code /fast}, {@code /slow?ms=N}, {@code /cpu?ms=N}, {@code
 * /fanout?calls=K&ms=N}, {@code /nested}; Actuator's {@code /actuator/metrics/http.server.requests}.
 *
 * <pre>
 * java -javaagent:lanes-agent/target/lanes-agent.jar=table -jar lanes-agent-demo/target/lanes-agent-demo.jar
 * </pre>
 *
 * It listens on 127.0.0.1 on a free port and prints one line, {@code lanes-agent-demo: listening
 * on http://127.0.0.1:PORT (servlet|reactive)}, when it is ready.
 */
@SpringBootApplication
public class AgentDemoApp {

  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(AgentDemoApp.class, args);
    String port = context.getEnvironment().getProperty("local.server.port");
    String type = context.getEnvironment().getProperty("spring.main.web-application-type", "servlet");
    System.out.println("lanes-agent-demo: listening on http://127.0.0.1:" + port + " (" + type + ")");
  }
}
