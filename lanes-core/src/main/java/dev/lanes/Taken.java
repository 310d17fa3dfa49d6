package dev.lanes;

/**
 * Where a taken entry's stamp and number are left, and a worker's place among the shards (see
 * "Shards" in {@link TaskRing}); its fields are written by its one taker's takes.
 */
final class Taken extends TakenFields {
  // The fields (in TakenFields) are written on every take: the objects after this one stay off
  // their lines (see LayoutTest).
  @SuppressWarnings("unused")
  private long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;

  /** Where a take leaves the stamp and number of the entry it took. */
  void entry(long stamp, long position) {
    this.stamp = stamp;
    this.position = position;
  }

  /** Sets the taker's home shard, where it looks first. */
  void home(int shard) {
    home = shard;
    cursor = shard;
  }

  /**
   * A take from {@code shard} by a taker whose home is {@code home}: after a take elsewhere it
   * looks at home first again; after {@code streak} takes in a row at home, at the others first.
   */
  void tookFrom(int shard, int home, int streak) {
    last = shard;
    if (shard != home) {
      cursor = home; // back home next
      this.streak = 0;
    } else if (++this.streak >= streak) {
      cursor = home + 1; // a streak at home: the others first next
      this.streak = 0;
    } else {
      cursor = home;
    }
  }

  /**
   * After a long task: the next take looks first at the shard after the last one's, so the
   * workers of a lane of long tasks take from every shard in turn (see "Shards").
   */
  void rotate() {
    cursor = last + 1;
    streak = 0;
  }
}

/** Padding before a {@link Taken}'s fields: the header and the object before it. */
abstract class TakenPadding {
  @SuppressWarnings("unused")
  private int q00; // fills the gap after the header, so the fields start after the padding
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** A {@link Taken}'s fields, between two paddings; written by its one taker. */
abstract class TakenFields extends TakenPadding {
  long stamp;
  /** The entry's number: its position in its shard, plus the shard's base (see RingShard). */
  long position;
  /** The taker's home shard (a worker's; 0 for any other taker). */
  int home;
  /** The shard the next take looks at first. */
  int cursor;
  /** The shard of the last take. */
  int last;
  /** Takes in a row from the home shard (see "Shards" in the class comment). */
  int streak;
}
