package dev.lanes.serve;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The live page ({@code /}) and its charting library, uPlot, served from its WebJar on the class
 * path (no CDN). The page reads {@code /series.json} ({@link LiveSeries}) and {@code /stats.json}
 * ({@link StatsJson}) and loads {@code /uplot.js} and {@code /uplot.css}; a server that serves
 * those five paths serves the page.
 */
public final class LivePage {
  private LivePage() {}

  /** Where the uPlot WebJar keeps its files; the version is also in lanes-serve's POM. */
  static final String UPLOT_WEBJAR = "META-INF/resources/webjars/uplot/1.6.30/dist/";

  /** The page's HTML. */
  public static byte[] html() {
    return resource(LivePage.class, "live.html");
  }

  /** uPlot's script, for {@code /uplot.js}. */
  public static byte[] uplotJs() {
    return resource(null, UPLOT_WEBJAR + "uPlot.iife.min.js");
  }

  /** uPlot's style sheet, for {@code /uplot.css}. */
  public static byte[] uplotCss() {
    return resource(null, UPLOT_WEBJAR + "uPlot.min.css");
  }

  private static byte[] resource(Class<?> near, String name) {
    try (InputStream in = near != null
        ? near.getResourceAsStream(name)
        : LivePage.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("lanes-serve: " + name + " missing from the class path"
            + (near == null ? " (the uPlot WebJar)" : ""));
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
