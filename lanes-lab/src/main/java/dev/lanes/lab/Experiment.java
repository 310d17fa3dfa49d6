package dev.lanes.lab;

/**
 * One experiment of the lab: a question, a set-up, and a run that measures and returns figures,
 * a verdict computed from them, charts and per-task records.
 */
public interface Experiment {

  /** "E1" … "E10". */
  String id();

  /** The question the experiment answers, in one sentence. */
  String question();

  /** Runs it. Must clean up everything it started, even when it fails. */
  ExperimentResult run(LabContext ctx) throws Exception;
}
