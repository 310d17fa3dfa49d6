package dev.lanes.agent.apps;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.RejectedExecutionHandlers;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Netty's event loops, real ones, with no lanes code:
 *
 * <ol>
 *   <li>a {@code DefaultEventLoop}: one probe task, then {@value #TASKS} tasks handed over at once
 *       (each parks 1 ms and measures its own wait and run), 10 tasks scheduled from outside the
 *       loop 5 ms apart, and a periodic task scheduled from inside it that cancels itself on its
 *       5th run;
 *   <li>a {@code DefaultEventExecutor} bounded to 16 pending tasks, up to a refusal;
 *   <li>an NIO group of 2 loops ({@code MultiThreadIoEventLoopGroup} with {@code NioIoHandler} in
 *       Netty 4.2; {@code NioEventLoopGroup} with the argument {@code nio-group}, for Netty 4.1):
 *       an echo server and a client on 127.0.0.1, 20 four-byte messages echoed; then the server's
 *       handler sleeps {@value #BLOCK_MS} ms on one message, and one task sleeps as long on the
 *       client's loop.
 * </ol>
 *
 * Prints a transcript (the same with and without the agent), a {@code figures:} line (the tasks'
 * own wait and run sums) and a {@code threads:} line (the threads alive once every loop ended).
 */
public final class NettyLoopApp {
  public static final int TASKS = 200;
  public static final long BLOCK_MS = 1_500;

  public static void main(String[] args) throws Exception {
    boolean nettyFour1 = args.length > 0 && args[0].equals("nio-group");
    List<Thread> loopThreads = new ArrayList<>();

    EventLoopGroup plain = new DefaultEventLoopGroup(1, new DefaultThreadFactory("app-loop"));
    EventLoop loop = plain.next();
    loopThreads.add(loop.submit(Thread::currentThread).get());
    System.out.println("loop thread: " + loopThreads.get(0).getName());

    AtomicLong waitSum = new AtomicLong();
    AtomicLong runSum = new AtomicLong();
    CountDownLatch done = new CountDownLatch(TASKS);
    for (int i = 0; i < TASKS; i++) {
      long submitted = System.nanoTime();
      loop.execute(() -> {
        long start = System.nanoTime();
        waitSum.addAndGet(start - submitted);
        LockSupport.parkNanos(1_000_000);
        runSum.addAndGet(System.nanoTime() - start);
        done.countDown();
      });
    }
    done.await();
    System.out.println("tasks ran: " + (TASKS - done.getCount()));

    CountDownLatch due = new CountDownLatch(10);
    for (int i = 0; i < 10; i++) {
      loop.schedule(due::countDown, 5L * i, TimeUnit.MILLISECONDS);
    }
    due.await();
    System.out.println("scheduled ran: " + (10 - due.getCount()));

    CountDownLatch ticks = new CountDownLatch(5);
    AtomicInteger tickCount = new AtomicInteger();
    AtomicReference<ScheduledFuture<?>> periodic = new AtomicReference<>();
    // Scheduled from inside the loop: its first run cannot come before the reference is set.
    loop.execute(() -> periodic.set(loop.scheduleAtFixedRate(() -> {
      if (tickCount.incrementAndGet() == 5) {
        periodic.get().cancel(false);
      }
      ticks.countDown();
    }, 5, 5, TimeUnit.MILLISECONDS)));
    ticks.await();
    periodic.get().await();
    System.out.println("periodic ran: " + tickCount.get() + ", cancelled: " + periodic.get().isCancelled());

    refusal(loopThreads);

    EventLoopGroup io = nettyFour1 ? Four1.nioGroup(2, new DefaultThreadFactory("app-io"))
        : Four2.ioGroup(2, new DefaultThreadFactory("app-io"));
    for (EventExecutor e : io) {
      loopThreads.add(e.submit(Thread::currentThread).get());
    }
    Channel server = new ServerBootstrap().group(io).channel(NioServerSocketChannel.class)
        .childHandler(new Echo()).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    AtomicReference<CountDownLatch> echoed = new AtomicReference<>(new CountDownLatch(80));
    Channel client = new Bootstrap().group(io).channel(NioSocketChannel.class)
        .handler(new ChannelInboundHandlerAdapter() {
          @Override public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            for (int n = b.readableBytes(); n > 0; n--) {
              echoed.get().countDown();
            }
            b.release();
          }
        }).connect(server.localAddress()).sync().channel();
    for (int i = 0; i < 20; i++) {
      client.writeAndFlush(client.alloc().buffer(4).writeInt(i));
    }
    echoed.get().await();
    System.out.println("echoed bytes: " + (80 - echoed.get().getCount()));

    echoed.set(new CountDownLatch(4));
    client.writeAndFlush(client.alloc().buffer(4).writeInt(Echo.SLEEP));
    echoed.get().await();
    System.out.println("handler slept on: " + Echo.sleptOn);

    CountDownLatch blocked = new CountDownLatch(1);
    client.eventLoop().execute(() -> {
      sleepOnTheLoop();
      blocked.countDown();
    });
    blocked.await();
    String clientLoop = client.eventLoop().submit(() -> Thread.currentThread().getName()).get();
    System.out.println("blocking task ran on: " + clientLoop);

    client.close().sync();
    server.close().sync();
    io.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    plain.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    for (Thread t : loopThreads) {
      t.join();
    }
    System.out.printf("figures: wait_total_ms=%.3f run_total_ms=%.3f%n", waitSum.get() / 1e6,
        runSum.get() / 1e6);
    TreeSet<String> threads = new TreeSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      threads.add(t.getName());
    }
    System.out.println("threads: " + String.join(",", threads));
  }

  /**
   * A {@code DefaultEventExecutor} that holds at most 16 pending tasks (Netty's least bound): one
   * task holds its thread, 16 wait, the 17th is refused (Netty's default handler throws).
   */
  private static void refusal(List<Thread> loopThreads) throws Exception {
    DefaultEventExecutor bounded = new DefaultEventExecutor(null, new DefaultThreadFactory("app-bounded"),
        16, RejectedExecutionHandlers.reject());
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    loopThreads.add(bounded.submit(Thread::currentThread).get());
    bounded.execute(() -> {
      holding.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    holding.await();
    CountDownLatch queuedRan = new CountDownLatch(16);
    for (int i = 0; i < 16; i++) {
      bounded.execute(queuedRan::countDown);
    }
    try {
      bounded.execute(() -> { });
      System.out.println("17th pending task: accepted");
    } catch (RejectedExecutionException e) {
      System.out.println("17th pending task: refused (" + e.getClass().getSimpleName() + ")");
    }
    System.out.println("bounded executor thread: " + loopThreads.get(loopThreads.size() - 1).getName());
    release.countDown();
    queuedRan.await();
    bounded.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
  }

  /** What an application should not do on an event loop: every channel of the loop waits. */
  static void sleepOnTheLoop() {
    try {
      Thread.sleep(BLOCK_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Echoes what it reads; on the message {@value #SLEEP}, sleeps first (in the loop's IO turn). */
  private static final class Echo extends ChannelInboundHandlerAdapter {
    static final int SLEEP = 99;
    static volatile String sleptOn;

    @Override public boolean isSharable() {
      return true;
    }

    @Override public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      if (b.readableBytes() == 4 && b.getInt(b.readerIndex()) == SLEEP) {
        sleepInTheHandler();
        sleptOn = Thread.currentThread().getName();
      }
      ctx.writeAndFlush(msg);
    }
  }

  /** The same mistake in a channel handler: the loop's other channels wait. */
  static void sleepInTheHandler() {
    try {
      Thread.sleep(BLOCK_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Netty 4.2's NIO group (what Reactor Netty and Spring Boot 4 make); loaded only when used. */
  private static final class Four2 {
    static EventLoopGroup ioGroup(int threads, ThreadFactory factory) {
      return new MultiThreadIoEventLoopGroup(threads, factory, NioIoHandler.newFactory());
    }
  }

  /** Netty 4.1's NIO group (deprecated in 4.2, which it still runs on); loaded only when used. */
  private static final class Four1 {
    @SuppressWarnings("deprecation")
    static EventLoopGroup nioGroup(int threads, ThreadFactory factory) {
      return new io.netty.channel.nio.NioEventLoopGroup(threads, factory);
    }
  }
}
