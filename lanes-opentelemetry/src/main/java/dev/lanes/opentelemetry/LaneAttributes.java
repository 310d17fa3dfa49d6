package dev.lanes.opentelemetry;

import dev.lanes.Lane;
import dev.lanes.LaneHealth;
import dev.lanes.TaskOutcome;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The attribute sets of one lane, made once so that a collection allocates none: {@code lane} and
 * {@code kind} on lanes' own names; {@code jvm.executor.name} (the lane's name) and {@code
 * jvm.executor.type} (the lane's implementation class) on the convention's.
 */
record LaneAttributes(
    Attributes lane,
    Map<TaskOutcome, Attributes> byOutcome,
    Map<LaneHealth, Attributes> byHealth,
    Attributes executor,
    Attributes executorActive,
    Attributes executorIdle) {

  static final AttributeKey<String> LANE = AttributeKey.stringKey("lane");
  static final AttributeKey<String> KIND = AttributeKey.stringKey("kind");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  static final AttributeKey<String> REJECTED = AttributeKey.stringKey("rejected");
  static final AttributeKey<String> STATE = AttributeKey.stringKey("state");
  static final AttributeKey<String> EXECUTOR_NAME = AttributeKey.stringKey("jvm.executor.name");
  static final AttributeKey<String> EXECUTOR_TYPE = AttributeKey.stringKey("jvm.executor.type");
  static final AttributeKey<String> THREAD_STATE =
      AttributeKey.stringKey("jvm.executor.thread.state");

  static LaneAttributes of(Lane lane) {
    Attributes own = Attributes.of(LANE, lane.name(), KIND, lane.kind().tag());
    Map<TaskOutcome, Attributes> byOutcome = new EnumMap<>(TaskOutcome.class);
    for (TaskOutcome o : TaskOutcome.values()) {
      byOutcome.put(o, own.toBuilder()
          .put(OUTCOME, o.tag())
          .put(REJECTED, Boolean.toString(o.isRejection()))
          .build());
    }
    Map<LaneHealth, Attributes> byHealth = new EnumMap<>(LaneHealth.class);
    for (LaneHealth h : LaneHealth.values()) {
      byHealth.put(h, own.toBuilder().put(STATE, h.name().toLowerCase(Locale.ROOT)).build());
    }
    Attributes executor =
        Attributes.of(EXECUTOR_NAME, lane.name(), EXECUTOR_TYPE, lane.getClass().getName());
    return new LaneAttributes(own, Map.copyOf(byOutcome), Map.copyOf(byHealth), executor,
        executor.toBuilder().put(THREAD_STATE, "active").build(),
        executor.toBuilder().put(THREAD_STATE, "idle").build());
  }
}
