package dev.lanes.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

/**
 * The lab's two chart shapes, styled alike: grouped bars and lines. Legends sit below the plot,
 * never over data; text is at least 12 px at the page's size; bar values are labelled in a colour
 * that contrasts with their bar; charts are written at twice the page's size ({@link #DPI}) so they
 * stay sharp on high-density screens. Where compared values differ by orders of magnitude, a
 * chart takes {@link Scale#LOG}; otherwise the value axis starts at zero.
 */
public final class Charts {

  /** The size the page shows a chart at, in CSS pixels. */
  public static final int WIDTH = 820;
  public static final int HEIGHT = 440;

  /** Written at 2× (72 dpi is 1×). */
  public static final int DPI = 144;

  /** The value axis. */
  public enum Scale {
    /** Linear, starting at zero, so bars and lines compare by their length. */
    FROM_ZERO,
    /** Logarithmic (decades), for values that differ by orders of magnitude; zeros are not drawn. */
    LOG
  }

  private static final Color[] PALETTE = {
    new Color(0x1F5FBF), new Color(0xD35400), new Color(0x2E8B57), new Color(0xB71C1C),
    new Color(0x6A3D9A), new Color(0x8C6D31)
  };

  private static final String FONT = Font.SANS_SERIF;

  private Charts() {}

  /** Grouped bars on a value axis from zero: one group per category, one bar per series. */
  public static CategoryChart bars(
      String title, String yTitle, List<String> categories, Map<String, List<Double>> series) {
    return bars(title, yTitle, categories, series, Scale.FROM_ZERO);
  }

  /**
   * Stacked bars: one bar per category made of its parts (series → values by category), for a
   * whole split into outcomes. The legend sits to the right of the plot.
   */
  public static CategoryChart stacked(
      String title, String yTitle, List<String> categories, Map<String, List<Double>> series) {
    // A part of 0 has no height: leave it out (null) rather than print a "0" label on the seam.
    Map<String, List<Double>> parts = new java.util.LinkedHashMap<>();
    series.forEach((name, values) -> parts.put(name,
        values.stream().map(v -> v == null || v == 0 ? null : v).collect(java.util.stream.Collectors.toList())));
    CategoryChart chart = bars(title, yTitle, categories, parts, Scale.FROM_ZERO);
    chart.getStyler().setStacked(true);
    chart.getStyler().setXAxisLabelRotation(30);
    chart.getStyler().setXAxisTickMarkSpacingHint(20); // every category keeps its label
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
    chart.getStyler().setOverlapped(false);
    return chart;
  }

  /** Grouped bars on a logarithmic value axis, for values that differ by orders of magnitude. */
  public static CategoryChart barsLog(
      String title, String yTitle, List<String> categories, Map<String, List<Double>> series) {
    return bars(title, yTitle, categories, series, Scale.LOG);
  }

  /** Grouped bars: one group per category, one bar per series (series → values by category). */
  public static CategoryChart bars(String title, String yTitle, List<String> categories,
      Map<String, List<Double>> series, Scale scale) {
    CategoryChart chart =
        new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .yAxisTitle(yTitle + (scale == Scale.LOG ? " (log scale)" : "")).build();
    style(chart.getStyler());
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setLegendVisible(series.size() > 1);
    if (categories.size() > 5) {
      chart.getStyler().setXAxisLabelRotation(20);
      chart.getStyler().setXAxisTickMarkSpacingHint(20); // else XChart skips every other category's label
    }
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFont(new Font(FONT, Font.BOLD, 12));
    chart.getStyler().setLabelsFontColorAutomaticEnabled(true);
    chart.getStyler().setLabelsFontColorAutomaticLight(Color.WHITE);
    chart.getStyler().setLabelsFontColorAutomaticDark(Color.BLACK);
    chart.getStyler().setLabelsPosition(0.5);
    chart.getStyler().setDecimalPattern("#,##0.#");
    scale(chart.getStyler(), scale);
    if (scale == Scale.LOG) {
      // Bars grow from the axis' minimum: put it at the decade below the smallest value.
      double min = series.values().stream().flatMap(List::stream)
          .filter(v -> v != null && v > 0).mapToDouble(Double::doubleValue).min().orElse(1);
      chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
    }
    for (Map.Entry<String, List<Double>> s : series.entrySet()) {
      List<Double> ys = new ArrayList<>();
      for (Double v : s.getValue()) {
        ys.add(scale == Scale.LOG && v != null && v <= 0 ? Double.valueOf(Double.NaN) : v); // NaN, null: not drawn
      }
      chart.addSeries(s.getKey(), new ArrayList<>(categories), ys);
    }
    return chart;
  }

  /** Lines on a value axis from zero: series → {xs, ys}. */
  public static XYChart lines(
      String title, String xTitle, String yTitle, Map<String, double[][]> series) {
    return lines(title, xTitle, yTitle, series, Scale.FROM_ZERO);
  }

  /** Lines: series → {xs, ys}. */
  public static XYChart lines(String title, String xTitle, String yTitle, Map<String, double[][]> series,
      Scale scale) {
    XYChart chart =
        new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
            .yAxisTitle(yTitle + (scale == Scale.LOG ? " (log scale)" : "")).build();
    style(chart.getStyler());
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    chart.getStyler().setMarkerSize(4);
    scale(chart.getStyler(), scale);
    for (Map.Entry<String, double[][]> s : series.entrySet()) {
      double[] xs = s.getValue()[0];
      double[] ys = s.getValue()[1];
      if (xs.length == 0) {
        xs = new double[] {0};
        ys = new double[] {scale == Scale.LOG ? 1 : 0};
      }
      chart.addSeries(s.getKey(), xs, ys);
    }
    return chart;
  }

  /** Marks an event at {@code x} with a vertical line and a label centred on it at height {@code labelY}. */
  public static XYChart markX(XYChart chart, double x, double labelY, String label) {
    return markX(chart, x, labelY, label, x);
  }

  /** Marks an event at {@code x} with a vertical line and a label centred at ({@code labelX}, {@code labelY}). */
  public static XYChart markX(XYChart chart, double x, double labelY, String label, double labelX) {
    chart.addAnnotation(new AnnotationLine(x, true, false));
    chart.addAnnotation(new AnnotationText(label, labelX, labelY, false));
    return chart;
  }

  /** Marks a level {@code y} (a limit) with a horizontal line and a label centred at ({@code labelX}, {@code labelY}). */
  public static XYChart markY(XYChart chart, double y, double labelX, double labelY, String label) {
    chart.addAnnotation(new AnnotationLine(y, false, false));
    chart.addAnnotation(new AnnotationText(label, labelX, labelY, false));
    return chart;
  }

  /** Series in the order given: {@code series("a", listA, "b", listB)}. */
  @SuppressWarnings("unchecked")
  public static Map<String, List<Double>> series(Object... namesAndValues) {
    Map<String, List<Double>> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      out.put((String) namesAndValues[i], (List<Double>) namesAndValues[i + 1]);
    }
    return out;
  }

  private static void scale(AxesChartStyler styler, Scale scale) {
    if (scale == Scale.LOG) {
      styler.setYAxisLogarithmic(true);
      styler.setYAxisLogarithmicDecadeOnly(true);
    } else {
      styler.setYAxisMin(0.0);
    }
  }

  private static void style(AxesChartStyler styler) {
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    styler.setSeriesColors(PALETTE);
    styler.setLegendBorderColor(Color.WHITE);
    styler.setPlotBorderVisible(false);
    styler.setChartFontColor(new Color(0x222222));
    styler.setChartTitleFont(new Font(FONT, Font.BOLD, 16));
    styler.setAxisTitleFont(new Font(FONT, Font.PLAIN, 14));
    styler.setAxisTickLabelsFont(new Font(FONT, Font.PLAIN, 13));
    styler.setAxisTickLabelsColor(new Color(0x222222));
    styler.setLegendFont(new Font(FONT, Font.PLAIN, 13));
    styler.setAnnotationTextFont(new Font(FONT, Font.BOLD, 13));
    styler.setAnnotationTextFontColor(new Color(0xB71C1C));
    styler.setAnnotationLineColor(new Color(0xB71C1C));
    styler.setAnnotationLineStroke(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
        new float[] {6f, 4f}, 0f));
  }
}
