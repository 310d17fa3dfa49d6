package dev.lanes.agentit;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A small bookshop, a real Spring Boot 4 application with no lanes code in it, for the lanes
 * agent to be loaded into: Spring MVC on Tomcat, JPA (Hibernate) on an in-memory H2 database
 * filled at start ({@link SampleData}), Jackson 3 for JSON, and Byte Buddy used by the
 * application itself. Packaged as a fat jar, so its classes and libraries load through Spring
 * Boot's class loader.
 *
 * <p>Endpoints: {@code GET /} (an HTML page), {@code GET /books}, {@code GET /books/{id}}, {@code
 * GET /books/{id}/author-proxy} ({@link BookEndpoints}); {@code POST /numbers/doubles}, {@code
 * POST /numbers/invoice} ({@link NumberEndpoints}); {@code GET /runtime-subclass} ({@link
 * RuntimeSubclassEndpoint}).
 *
 * <p>It listens on 127.0.0.1 on a free port and prints one line, {@code lanes-agent-it: listening
 * on http://127.0.0.1:PORT}, when it is ready.
 */
@SpringBootApplication
public class BookshopApp {

  public static void main(String[] args) {
    ConfigurableApplicationContext context = SpringApplication.run(BookshopApp.class, args);
    String port = context.getEnvironment().getProperty("local.server.port");
    System.out.println("lanes-agent-it: listening on http://127.0.0.1:" + port);
  }
}
