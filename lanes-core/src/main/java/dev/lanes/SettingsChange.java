package dev.lanes;

/**
 * A running lane's settings were changed through {@link Lane#change()} (told to the listeners of
 * {@link Lane#onSettings}, on the thread that applied the change, after it took effect).
 *
 * @param lane the lane's name
 * @param before the settings before the change
 * @param after the settings now
 * @param atNanos when, on the lane's ticker
 */
public record SettingsChange(String lane, LaneSettings before, LaneSettings after, long atNanos) {

  /** {@return what changed, for people: {@code "queueCapacity 500 → 200"}} */
  public String describe() {
    return after.differencesFrom(before);
  }
}
