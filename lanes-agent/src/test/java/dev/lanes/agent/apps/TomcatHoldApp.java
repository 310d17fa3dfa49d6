package dev.lanes.agent.apps;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * Embedded Tomcat on 127.0.0.1 with {@value #MAX_THREADS} request threads whose servlet {@code
 * /hold} holds each request until the gate opens: requests beyond the threads queue in Tomcat's
 * pool. Prints {@code port N} when it serves; the line {@code open} on stdin opens the gate; the
 * end of stdin stops Tomcat and the app.
 */
public final class TomcatHoldApp {
  static final int MAX_THREADS = 2;

  public static void main(String[] args) throws Exception {
    Logger.getLogger("org.apache").setLevel(Level.WARNING);
    Path base = Files.createTempDirectory("tomcat-hold");
    CountDownLatch gate = new CountDownLatch(1);
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    Connector connector = TomcatApp.connector(tomcat, MAX_THREADS);
    Context context = tomcat.addContext("", base.toString());
    Tomcat.addServlet(context, "hold", new Hold(gate));
    context.addServletMappingDecoded("/hold", "hold");
    tomcat.start();
    System.out.println("port " + connector.getLocalPort());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("open")) {
        gate.countDown();
      }
    }
    gate.countDown();
    tomcat.stop();
    tomcat.destroy();
  }

  /** Answers {@code held} once the gate opens (at most a minute later). */
  private static final class Hold extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient CountDownLatch gate;

    Hold(CountDownLatch gate) {
      this.gate = gate;
    }

    @Override protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      try {
        gate.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      resp.setContentType("text/plain");
      resp.getWriter().write("held");
    }
  }
}
