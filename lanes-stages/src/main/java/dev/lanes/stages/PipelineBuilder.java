package dev.lanes.stages;

import dev.lanes.Lane;
import dev.lanes.OverflowPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds a {@link Pipeline}: {@code Pipeline.<In>builder(name)}, then one {@link #stage} per step,
 * then {@link #build()}. A builder is immutable: each {@code stage} returns a new builder typed by
 * the new stage's output, so a partly built chain can be reused as a prefix.
 *
 * <pre>{@code
 * Pipeline<URI, Long> ingest = Pipeline.<URI>builder("ingest")
 *     .stage("fetch", io, uri -> http.get(uri))       // a virtual lane
 *     .stage("parse", cpu, body -> Json.parse(body))  // a CPU lane
 *     .stage("store", db, doc -> repository.save(doc)) // a blocking lane
 *     .build();
 * }</pre>
 *
 * @param <I> the type of the items submitted
 * @param <O> the type the last stage given so far returns
 */
public final class PipelineBuilder<I, O> {

  /** The longest name, of a pipeline or a stage. */
  public static final int MAX_NAME_LENGTH = 100;

  /** One stage as given: its name, its lane and its function (typed by the builder's chain). */
  record StageSpec(String name, Lane lane, Function<Object, Object> work) {}

  private final String name;
  private final List<StageSpec> stages;

  private PipelineBuilder(String name, List<StageSpec> stages) {
    this.name = name;
    this.stages = stages;
  }

  static <T> PipelineBuilder<T, T> start(String name) {
    return new PipelineBuilder<>(checkName(null, "pipeline name", name), List.of());
  }

  /**
   * Adds a stage that runs {@code work} on {@code lane} for every item the stage before it
   * returns (the submitted item, for the first stage). The stage's tasks carry the label {@code
   * <pipeline>/<stage>} in the lane's task records and stats.
   *
   * @param <R> what {@code work} returns
   * @param stage the stage's name: 1 to {@value #MAX_NAME_LENGTH} printable characters, no
   *     {@code /}, unique in the pipeline
   * @param lane the lane it runs on; several stages may share one unless it blocks its caller when
   *     full (see {@link #build()})
   * @param work what the stage does with an item; what it throws fails the item with a {@link
   *     StageException} naming the stage
   * @return a new builder with the stage added
   * @throws NullPointerException if {@code lane} or {@code work} is null
   * @throws IllegalArgumentException if the name is not valid or already used in this pipeline
   */
  @SuppressWarnings("unchecked")
  public <R> PipelineBuilder<I, R> stage(String stage, Lane lane, Function<? super O, ? extends R> work) {
    String n = checkName(name, "stage name", stage);
    Objects.requireNonNull(lane, prefix() + "stage \"" + n + "\": lane must not be null");
    Objects.requireNonNull(work, prefix() + "stage \"" + n + "\": work must not be null");
    for (StageSpec s : stages) {
      if (s.name().equals(n)) {
        throw new IllegalArgumentException(prefix() + "stage \"" + n + "\" is given twice; stage names"
            + " must be unique, the stages so far are " + names());
      }
    }
    List<StageSpec> more = new ArrayList<>(stages);
    more.add(new StageSpec(n, lane, (Function<Object, Object>) work));
    return new PipelineBuilder<>(name, List.copyOf(more));
  }

  /**
   * Builds the pipeline and starts following its lanes' task records (until {@link
   * Pipeline#close()}).
   *
   * @return the pipeline
   * @throws IllegalStateException if no stage was given; or if a lane runs two stages and blocks
   *     its caller when full ({@code OverflowPolicy.blockCaller}): a stage's thread handing an item
   *     on would then wait for room that only that lane's threads, all waiting the same way, could
   *     make; or if a pipeline of the same name that is not closed already runs on one of the
   *     lanes (their task labels, and so their figures, would mix)
   */
  public Pipeline<I, O> build() {
    if (stages.isEmpty()) {
      throw new IllegalStateException(prefix() + "has no stages; add one with stage(name, lane, work)");
    }
    for (int i = 0; i < stages.size(); i++) {
      for (int j = i + 1; j < stages.size(); j++) {
        Lane lane = stages.get(i).lane();
        if (lane == stages.get(j).lane() && blocksCaller(lane.overflow())) {
          throw new IllegalStateException(prefix() + "lane \"" + lane.name() + "\" runs stages \""
              + stages.get(i).name() + "\" and \"" + stages.get(j).name() + "\" and its overflow policy is "
              + lane.overflow() + ": when it is full, its threads would wait for room that only they"
              + " can make; give each of those stages its own lane, or the lane another policy");
        }
      }
    }
    return new Pipeline<>(name, stages);
  }

  /** The four policies are compared by value; block-caller is the one with a timeout. */
  private static boolean blocksCaller(OverflowPolicy p) {
    return !p.equals(OverflowPolicy.reject()) && !p.equals(OverflowPolicy.callerRuns())
        && !p.equals(OverflowPolicy.discardOldest());
  }

  /** {@return the stage names given so far} */
  public List<String> names() {
    return stages.stream().map(StageSpec::name).toList();
  }

  @Override
  public String toString() {
    return "PipelineBuilder[" + name + ": " + names() + "]";
  }

  private String prefix() {
    return "pipeline \"" + name + "\": ";
  }

  static String checkName(String pipeline, String what, String value) {
    String where = pipeline == null ? "" : "pipeline \"" + pipeline + "\": ";
    if (value == null) {
      throw new IllegalArgumentException(where + what + " must not be null");
    }
    String v = value.strip();
    boolean printable = v.codePoints().allMatch(c -> !Character.isISOControl(c));
    if (v.isEmpty() || v.length() > MAX_NAME_LENGTH || !printable || v.contains("/")) {
      throw new IllegalArgumentException(where + what + " must be 1 to " + MAX_NAME_LENGTH
          + " printable characters without '/', was \"" + value.replace("\n", "\\n") + "\"");
    }
    return v;
  }
}
