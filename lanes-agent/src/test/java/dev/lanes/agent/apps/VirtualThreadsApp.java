package dev.lanes.agent.apps;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/** 2,000 virtual threads that each park twice: their carriers' scheduler is a fork-join pool. */
public final class VirtualThreadsApp {
  public static void main(String[] args) throws Exception {
    try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Integer>> all = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        int n = i;
        all.add(vts.submit(() -> {
          Thread.sleep(1);
          Thread.sleep(1);
          return n;
        }));
      }
      long sum = 0;
      for (Future<Integer> f : all) {
        sum += f.get();
      }
      System.out.println("sum: " + sum);
    }
  }
}
