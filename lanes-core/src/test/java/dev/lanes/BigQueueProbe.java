package dev.lanes;

/** Run by {@link NoOpensTest} in a 64 MB JVM: builds a lane with the largest queue. */
public final class BigQueueProbe {
  private BigQueueProbe() {}

  public static void main(String[] args) {
    try (Lane lane = Lane.blocking("huge", 1).queueCapacity(LaneBuilder.MAX_QUEUE_CAPACITY).build()) {
      System.out.println("built=" + lane.name());
    } catch (IllegalArgumentException e) {
      System.out.println("refused: " + e.getMessage());
    }
  }
}
