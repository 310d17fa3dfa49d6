package dev.lanes.lab;

import dev.lanes.TaskRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * What an experiment measured: named figures (numbers or booleans), a table for the report, a
 * verdict and {@code holds} computed from the figures, charts, and the task records of every lane
 * it used. Built by one thread (the experiment's), then only read.
 */
public final class ExperimentResult {

  /** A chart to be written as {@code <file>.png} beside the report. */
  public record Figure(String file, String caption, Chart<?, ?> chart) {}

  /** A table: a header row and rows of cells, already formatted. */
  public record Table(List<String> header, List<List<String>> rows) {}

  private final String id;
  private final String question;
  private String setup = "";
  private boolean holds;
  private String verdict = "";
  private final Map<String, Object> figures = new LinkedHashMap<>();
  private final List<Figure> charts = new ArrayList<>();
  private Table table = new Table(List.of(), List.of());
  private final List<TaskRecord> tasks = new ArrayList<>();
  private boolean usesLanes;
  private String error; // null unless the experiment failed to run

  /** The result of an experiment that threw: an error with its cause, not a claim that failed. */
  public static ExperimentResult crashed(Experiment experiment, Throwable cause) {
    ExperimentResult r = new ExperimentResult(experiment);
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String why = cause.toString();
    if (root != cause) {
      why += " (cause: " + root + ")";
    }
    r.error = why;
    r.verdict = "The experiment failed to run, so this run says nothing about its claim: " + why;
    return r;
  }

  public ExperimentResult(Experiment experiment) {
    this.id = experiment.id();
    this.question = experiment.question();
  }

  public ExperimentResult setup(String setup) {
    this.setup = setup;
    return this;
  }

  /** Records a number figure (NaN and infinities are stored as -1: JSON has no NaN). */
  public ExperimentResult figure(String name, double value) {
    figures.put(name, Double.isFinite(value) ? value : -1.0);
    return this;
  }

  public ExperimentResult figure(String name, long value) {
    figures.put(name, value);
    return this;
  }

  public ExperimentResult figure(String name, boolean value) {
    figures.put(name, value);
    return this;
  }

  public ExperimentResult verdict(boolean holds, String verdict) {
    this.holds = holds;
    this.verdict = verdict;
    return this;
  }

  public ExperimentResult chart(String file, String caption, Chart<?, ?> chart) {
    charts.add(new Figure(file, caption, chart));
    return this;
  }

  public ExperimentResult table(List<String> header, List<List<String>> rows) {
    this.table = new Table(List.copyOf(header), List.copyOf(rows));
    return this;
  }

  /** Adds the records of lane runs; an experiment that calls this gets an {@code -tasks.csv}. */
  public ExperimentResult tasks(List<TaskRecord> records) {
    usesLanes = true;
    tasks.addAll(records);
    return this;
  }

  public String id() {
    return id;
  }

  public String question() {
    return question;
  }

  public String setup() {
    return setup;
  }

  public boolean holds() {
    return holds;
  }

  public String verdict() {
    return verdict;
  }

  public Map<String, Object> figures() {
    return figures;
  }

  public List<Figure> charts() {
    return charts;
  }

  public Table table() {
    return table;
  }

  public List<TaskRecord> taskRecords() {
    return tasks;
  }

  /** True when the experiment threw instead of finishing; {@link #error()} says why. */
  public boolean crashed() {
    return error != null;
  }

  /** What the experiment threw, with its root cause, or null when it ran. */
  public String error() {
    return error;
  }

  public boolean usesLanes() {
    return usesLanes;
  }
}
