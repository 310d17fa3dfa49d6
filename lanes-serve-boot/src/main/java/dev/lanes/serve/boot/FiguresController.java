package dev.lanes.serve.boot;

import dev.lanes.Lanes;
import dev.lanes.serve.EndpointBook;
import dev.lanes.serve.LivePage;
import dev.lanes.serve.LiveSeries;
import dev.lanes.serve.StatsJson;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The figures and the live page, as the JDK-HttpServer demo serves them (lanes-serve's {@link
 * StatsJson}, {@link LiveSeries} and {@link LivePage}), on Spring MVC and WebFlux alike. They run
 * where Spring runs a plain handler: on Tomcat's request threads (lane {@code http}), so in {@code
 * shared} mode they wait behind the slow requests like any other request; on Netty's event loop.
 */
@RestController
class FiguresController {
  private static final MediaType JAVASCRIPT = MediaType.parseMediaType("text/javascript;charset=UTF-8");
  private static final MediaType CSS = MediaType.parseMediaType("text/css;charset=UTF-8");

  private final Lanes lanes;
  private final EndpointBook book;
  private final LiveSeries series;
  private final String server;
  private final String mode;
  private final byte[] page = LivePage.html();
  private final byte[] uplotJs = LivePage.uplotJs();
  private final byte[] uplotCss = LivePage.uplotCss();

  FiguresController(Lanes lanes, EndpointBook book, LiveSeries series,
      @Value("${demo.server}") String server, @Value("${demo.mode}") String mode) {
    this.lanes = lanes;
    this.book = book;
    this.series = series;
    this.server = server;
    this.mode = mode;
  }

  /** Every lane's figures since start, and per endpoint the queue wait and run time since the last reset. */
  @GetMapping("/stats.json")
  ResponseEntity<String> stats() {
    return ok(MediaType.APPLICATION_JSON, StatsJson.of(server, mode, lanes.all(), book, DemoFigures.STAGES));
  }

  /** Forgets the per-endpoint figures (./lanes load does this before a run). */
  @PostMapping("/stats/reset")
  ResponseEntity<String> reset() {
    book.reset();
    return ok(MediaType.TEXT_PLAIN, "endpoint figures reset\n");
  }

  @GetMapping("/series.json")
  ResponseEntity<String> series() {
    return ok(MediaType.APPLICATION_JSON, series.json());
  }

  @GetMapping("/")
  ResponseEntity<byte[]> page() {
    return ok(MediaType.TEXT_HTML, page);
  }

  @GetMapping("/uplot.js")
  ResponseEntity<byte[]> uplotJs() {
    return ok(JAVASCRIPT, uplotJs);
  }

  @GetMapping("/uplot.css")
  ResponseEntity<byte[]> uplotCss() {
    return ok(CSS, uplotCss);
  }

  private static <T> ResponseEntity<T> ok(MediaType type, T body) {
    return ResponseEntity.ok().contentType(type).cacheControl(CacheControl.noStore()).body(body);
  }
}
