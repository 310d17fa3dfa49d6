package dev.lanes.spring.boot;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * First in the Tomcat context's pipeline: counts each request once into {@link
 * TomcatRequestFigures} with its queue wait and the time the rest of the pipeline took. An
 * asynchronous request's later dispatches pass through uncounted (a Tomcat note, which the
 * application does not see, marks the request). Stateless apart from its figures; safe on any
 * number of threads.
 */
final class TomcatRequestValve extends ValveBase {
  private static final String COUNTED = TomcatRequestValve.class.getName() + ".counted";
  private final TomcatRequestFigures figures;

  TomcatRequestValve(TomcatRequestFigures figures) {
    super(true);
    this.figures = figures;
  }

  @Override
  public void invoke(Request request, Response response) throws IOException, ServletException {
    if (request.getNote(COUNTED) != null) {
      getNext().invoke(request, response);
      return;
    }
    request.setNote(COUNTED, Boolean.TRUE);
    long wait = TomcatRequestFigures.waitOfRequestStartingHere();
    long start = System.nanoTime();
    try {
      getNext().invoke(request, response);
    } finally {
      figures.record(wait, System.nanoTime() - start);
    }
  }
}
