package dev.lanes.agent.apps;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Netty event loop whose tasks throw now and then: Netty's {@code safeExecute} catches and logs
 * each exception itself, so nothing reaches the application. Runs 10 tasks, 3 of which throw, and
 * prints the loop's thread name.
 */
public final class NettyFailuresApp {
  public static void main(String[] args) throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop(new DefaultThreadFactory("failing-loop"));
    CountDownLatch ran = new CountDownLatch(10);
    String[] thread = new String[1];
    for (int i = 0; i < 10; i++) {
      boolean fail = i % 3 == 1;
      loop.execute(() -> {
        thread[0] = Thread.currentThread().getName();
        ran.countDown();
        if (fail) {
          throw new IllegalStateException("a task that fails");
        }
      });
    }
    if (!ran.await(30, TimeUnit.SECONDS)) {
      throw new AssertionError("the loop did not run its tasks");
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
    System.out.println("loop thread: " + thread[0]);
  }
}
