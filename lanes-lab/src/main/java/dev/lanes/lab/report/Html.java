package dev.lanes.lab.report;

import dev.lanes.lab.ExperimentResult;
import java.util.List;
import java.util.Map;

/** The report page: one self-contained HTML file (inline CSS, no scripts, no network). */
final class Html {

  private Html() {}

  static String page(boolean quick, long seed, int cores, long elapsedMs, List<ExperimentResult> results) {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
        .append("<title>lanes lab report</title>\n<style>\n")
        .append("body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:980px;")
        .append("margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\n")
        .append("h1{margin-bottom:.2em}h2{margin-top:2.2em;border-bottom:2px solid #ddd;padding-bottom:.2em}\n")
        .append("table{border-collapse:collapse;margin:.8em 0;font-size:.92em}\n")
        .append("td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}\n")
        .append("td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
        .append("th{background:#f4f4f4}\n")
        .append(".verdict{padding:.7em 1em;border-radius:6px;margin:1em 0}\n")
        .append(".holds{background:#e8f5e9;border-left:5px solid #43a047}\n")
        .append(".fails{background:#fff3e0;border-left:5px solid #fb8c00}\n")
        .append(".error{background:#ffebee;border-left:5px solid #c62828}\n")
        .append(".setup{color:#555}.meta{color:#666;font-size:.9em}\n")
        .append("figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}\n")
        .append("figcaption{color:#666;font-size:.9em}\n</style></head><body>\n");
    h.append("<h1>lanes lab report</h1>\n<p class=\"meta\">")
        .append(quick ? "Quick run (scaled down)" : "Full run")
        .append(" · JDK ").append(esc(Runtime.version().toString()))
        .append(" · ").append(cores).append(" cores · seed ").append(seed)
        .append(" · ").append(esc(System.getProperty("os.name")))
        .append(" · took ").append(Format.duration(elapsedMs))
        .append(ReportWriter.loadAverage() == null ? ""
            : String.format(java.util.Locale.ROOT, " · load average %.1f at the end", ReportWriter.loadAverage()))
        .append("</p>\n");
    Double load = ReportWriter.loadAverage();
    if (load != null && load > cores) {
      h.append("<p class=\"verdict fails\">The machine was busy with other work (load average ")
          .append(String.format(java.util.Locale.ROOT, "%.1f", load)).append(" on ").append(cores)
          .append(" cores). Timing figures are noisier than on a quiet machine, and experiments that"
              + " compare thread counts on CPU work (E1, E2) are skewed: the OS shares the CPU fairly"
              + " per thread, so more threads win a larger share from the other processes.</p>\n");
    }
    h.append("<p>Each experiment asks one question, measures it on this machine, and computes its "
        + "verdict from the measurements. \"Queue wait\" is the time a task waited for a thread; "
        + "\"run time\" is the time it ran. Per-task figures are in <code>&lt;id&gt;-tasks.csv</code>, "
        + "every figure in <code>&lt;id&gt;.csv</code> and <code>summary.json</code>.</p>\n");
    h.append("<table><tr><th>id</th><th>question</th><th>holds</th></tr>\n");
    for (ExperimentResult r : results) {
      h.append("<tr><td><a href=\"#").append(r.id()).append("\">").append(r.id())
          .append("</a></td><td style=\"text-align:left\">").append(esc(r.question()))
          .append("</td><td>").append(r.crashed() ? "error: did not run" : r.holds() ? "yes" : "no")
          .append("</td></tr>\n");
    }
    h.append("</table>\n");
    for (ExperimentResult r : results) {
      section(h, r);
    }
    h.append("</body></html>\n");
    return h.toString();
  }

  private static void section(StringBuilder h, ExperimentResult r) {
    h.append("<h2 id=\"").append(r.id()).append("\">").append(r.id()).append(" — ")
        .append(esc(r.question())).append("</h2>\n");
    if (r.crashed()) {
      h.append("<div class=\"verdict error\"><b>Error: the experiment failed to run.</b> ")
          .append(esc(r.error())).append(" The stack trace went to the lab's stderr.</div>\n");
      return;
    }
    h.append("<p class=\"setup\"><b>Set-up.</b> ").append(esc(r.setup())).append("</p>\n");
    h.append("<div class=\"verdict ").append(r.holds() ? "holds" : "fails").append("\"><b>")
        .append(r.holds() ? "Holds. " : "Does not hold here. ").append("</b>")
        .append(esc(r.verdict())).append("</div>\n");
    for (ExperimentResult.Figure f : r.charts()) {
      h.append("<figure><img width=\"").append(Charts.WIDTH).append("\" src=\"").append(esc(f.file()))
          .append(".png\" alt=\"")
          .append(esc(f.caption())).append("\"><figcaption>").append(esc(f.caption()))
          .append("</figcaption></figure>\n");
    }
    ExperimentResult.Table t = r.table();
    if (!t.header().isEmpty()) {
      h.append("<table><tr>");
      for (String c : t.header()) {
        h.append("<th>").append(esc(c)).append("</th>");
      }
      h.append("</tr>\n");
      for (List<String> row : t.rows()) {
        h.append("<tr>");
        for (String c : row) {
          h.append(cell(c));
        }
        h.append("</tr>\n");
      }
      h.append("</table>\n");
    }
    h.append("<details><summary>All figures (").append(r.figures().size()).append(")</summary><table>")
        .append("<tr><th>figure</th><th>value</th></tr>\n");
    for (Map.Entry<String, Object> e : r.figures().entrySet()) {
      h.append("<tr><td>").append(esc(e.getKey())).append("</td>")
          .append(cell(ReportWriter.fmt(e.getValue()))).append("</tr>\n");
    }
    h.append("</table></details>\n");
    String files = r.id() + ".csv" + (r.usesLanes() ? ", " + r.id() + "-tasks.csv" : "");
    h.append("<p class=\"meta\">Data: ").append(esc(files)).append("</p>\n");
  }

  /** A table cell; numbers are right-aligned. */
  private static String cell(String c) {
    boolean number = c.matches("-?[0-9][0-9,]*(\\.[0-9]+)?");
    return (number ? "<td class=\"n\">" : "<td>") + esc(c) + "</td>";
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
