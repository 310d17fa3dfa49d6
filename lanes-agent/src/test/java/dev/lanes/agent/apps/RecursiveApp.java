package dev.lanes.agent.apps;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

/**
 * Recursive fork/join computations (a {@code RecursiveTask} on a pool of its own and on the common
 * pool, a parallel stream), printed deterministically: the test wants the same output with and
 * without the agent. {@code fib(n)} forks one half and computes the other, joining the fork.
 */
public final class RecursiveApp {
  static final class Fib extends RecursiveTask<Long> {
    final int n;

    Fib(int n) {
      this.n = n;
    }

    @Override protected Long compute() {
      if (n < 2) {
        return (long) n;
      }
      Fib left = new Fib(n - 1);
      left.fork();
      long right = new Fib(n - 2).compute();
      return left.join() + right;
    }
  }

  public static void main(String[] args) throws Exception {
    ForkJoinPool pool = new ForkJoinPool(2, ForkJoinPoolApp.named("fj-recursive"), null, false);
    // Submitted as Callables: a caller outside the pool never runs those itself while it waits
    // (it may run a submitted ForkJoinTask), so the pool's workers run each of the 6.
    for (int round = 0; round < 3; round++) {
      System.out.println("pool fib(24) = " + pool.submit(() -> new Fib(24).invoke()).get());
      System.out.println("pool fib(22) = " + pool.submit(() -> new Fib(22).invoke()).get());
    }
    // From outside any pool: main may run it itself, forking into the common pool.
    System.out.println("invoked fib(22) = " + pool.invoke(new Fib(22)));
    System.out.println("common fib(22) = " + ForkJoinPool.commonPool().invoke(new Fib(22)));
    System.out.println("parallel sum = " + LongStream.rangeClosed(1, 2_000_000).parallel()
        .map(x -> x % 7).sum());
    pool.shutdown();
    System.out.println("terminated: " + pool.awaitTermination(10, TimeUnit.SECONDS));
    System.out.println("threads not mine: " + ForkJoinPoolApp.threadsNotMine("fj-recursive-"));
  }
}
