package dev.lanes.lab.report;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/** The lab's two chart shapes, styled alike: grouped bars and lines. */
public final class Charts {

  public static final int WIDTH = 820;
  public static final int HEIGHT = 420;

  private static final Color[] PALETTE = {
    new Color(0x4C72B0), new Color(0xDD8452), new Color(0x55A868), new Color(0xC44E52),
    new Color(0x8172B3), new Color(0x937860)
  };

  private Charts() {}

  /** Grouped bars: one group per category, one bar per series (series → values by category). */
  public static CategoryChart bars(
      String title, String yTitle, List<String> categories, Map<String, List<Double>> series) {
    CategoryChart chart =
        new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle)
            .build();
    style(chart.getStyler());
    chart.getStyler().setLegendPosition(series.size() > 1 ? Styler.LegendPosition.OutsideS
        : Styler.LegendPosition.InsideNE);
    chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
    chart.getStyler().setLegendVisible(series.size() > 1);
    if (categories.size() > 5) {
      chart.getStyler().setXAxisLabelRotation(20);
    }
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFontColorAutomaticEnabled(false);
    chart.getStyler().setLabelsFontColor(Color.DARK_GRAY);
    chart.getStyler().setLabelsPosition(0.9);
    chart.getStyler().setDecimalPattern("#,##0.#");
    for (Map.Entry<String, List<Double>> s : series.entrySet()) {
      chart.addSeries(s.getKey(), new ArrayList<>(categories), new ArrayList<>(s.getValue()));
    }
    return chart;
  }

  /** Lines: series → {xs, ys}. */
  public static XYChart lines(
      String title, String xTitle, String yTitle, Map<String, double[][]> series) {
    XYChart chart =
        new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
            .yAxisTitle(yTitle).build();
    style(chart.getStyler());
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    chart.getStyler().setMarkerSize(3);
    for (Map.Entry<String, double[][]> s : series.entrySet()) {
      double[] xs = s.getValue()[0];
      double[] ys = s.getValue()[1];
      if (xs.length == 0) {
        xs = new double[] {0};
        ys = new double[] {0};
      }
      chart.addSeries(s.getKey(), xs, ys);
    }
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

  private static void style(Styler styler) {
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    styler.setSeriesColors(PALETTE);
    styler.setLegendBorderColor(Color.LIGHT_GRAY);
    styler.setPlotBorderVisible(false);
  }
}
