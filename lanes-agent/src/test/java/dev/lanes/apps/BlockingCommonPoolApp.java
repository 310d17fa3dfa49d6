package dev.lanes.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RecursiveTask;
import java.util.stream.IntStream;

/**
 * Blocking calls in the common pool (its parallelism set to 2 by the test), {@link #BLOCK_MILLIS}
 * each, well past the agent's {@code blocking-warn} the test sets: {@code supply} fans out four
 * {@code supplyAsync} calls that sleep (writing 003's mistake); {@code stream} sleeps in a
 * parallel stream's lambda (run by the common pool's workers as forked subtasks); {@code spin}
 * keeps the workers busy computing as long, without blocking; {@code join}: a task joins a
 * subtask it forked while another worker computes it (the fork/join the pool is made for).
 *
 * <p>It lives outside {@code dev.lanes.agent}: the agent takes frames of that package for its own
 * and would not name this app's frame as where the blocking call is.
 */
public final class BlockingCommonPoolApp {
  public static final int BLOCK_MILLIS = 700;

  public static void main(String[] args) {
    switch (args[0]) {
      case "supply" -> {
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          int value = i;
          futures.add(CompletableFuture.supplyAsync(() -> slowLookup(value)));
        }
        System.out.println("sum = " + futures.stream().mapToInt(CompletableFuture::join).sum());
      }
      case "stream" -> System.out.println("sum = "
          + IntStream.range(0, 8).parallel().map(BlockingCommonPoolApp::slowLookup).sum());
      case "spin" -> {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          futures.add(CompletableFuture.supplyAsync(BlockingCommonPoolApp::spin));
        }
        System.out.println("spun: " + (futures.stream().mapToLong(CompletableFuture::join).sum() > 0));
      }
      // From a worker (a caller outside the pool may run the task itself while it joins).
      case "join" -> System.out.println("joined: "
          + CompletableFuture.supplyAsync(() -> new JoinsAStolenFork().invoke()).join());
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  /**
   * Forks a subtask, waits until another worker has taken it (so the join cannot run it here),
   * then joins it: the worker parks in the join while the subtask computes.
   */
  static final class JoinsAStolenFork extends RecursiveTask<Boolean> {
    @Override protected Boolean compute() {
      CountDownLatch taken = new CountDownLatch(1);
      RecursiveTask<Long> subtask = new RecursiveTask<>() {
        @Override protected Long compute() {
          taken.countDown();
          return spin();
        }
      };
      subtask.fork();
      try {
        taken.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return subtask.join() > 0;
    }
  }

  static int slowLookup(int value) {
    try {
      Thread.sleep(BLOCK_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return value;
  }

  static long spin() {
    long end = System.nanoTime() + BLOCK_MILLIS * 1_000_000L;
    long n = 0;
    while (System.nanoTime() < end) {
      n++;
    }
    return n;
  }
}
