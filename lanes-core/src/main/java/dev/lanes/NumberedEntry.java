package dev.lanes;

/**
 * A ring entry that takes its number from the position it is first appended at (a task's
 * envelope); a plain entry is numbered by its position when it is taken.
 */
interface NumberedEntry {
  /** Numbers the entry {@code id}, unless it has a number already (it was appended before). */
  void numberIfNew(long id);
}
