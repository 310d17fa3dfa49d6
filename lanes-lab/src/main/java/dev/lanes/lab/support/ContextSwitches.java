package dev.lanes.lab.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Context switches of this process, from Linux's /proc: {@code voluntary_ctxt_switches +
 * nonvoluntary_ctxt_switches} summed over {@code /proc/self/task/*}/status.
 *
 * <p>/proc only lists live threads, so a thread that dies takes its count with it. Threads made
 * by {@link ThreadCounter} read their own count just before they end and add it to {@link
 * #DIED}; {@link #total()} adds that sum, so thread-per-task runs are counted fully. Threads
 * that died elsewhere (e.g. a pool the JDK shrank) are missed: the figure is a lower bound, the
 * same for every variant compared. Off Linux there is no /proc and {@link #available()} is false.
 */
public final class ContextSwitches {

  private static final Path TASKS = Path.of("/proc/self/task");
  private static final Path THREAD_SELF = Path.of("/proc/thread-self/status");
  private static final AtomicLong DIED = new AtomicLong();

  private ContextSwitches() {}

  public static boolean available() {
    return Files.isDirectory(TASKS);
  }

  /** Switches so far (live threads + counted dead ones), or -1 when unavailable. */
  public static long total() {
    if (!available()) {
      return -1;
    }
    long sum = DIED.get();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        sum += Math.max(0, read(task.resolve("status")));
      }
    } catch (IOException e) {
      return -1;
    }
    return sum;
  }

  /** Called by a counted thread just before it ends. */
  static void threadEnding() {
    if (available()) {
      DIED.addAndGet(Math.max(0, read(THREAD_SELF)));
    }
  }

  private static long read(Path status) {
    try {
      List<String> lines = Files.readAllLines(status);
      long sum = 0;
      for (String line : lines) {
        if (line.startsWith("voluntary_ctxt_switches:")
            || line.startsWith("nonvoluntary_ctxt_switches:")) {
          sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
      return sum;
    } catch (IOException | RuntimeException e) {
      return -1; // the thread ended between listing and reading
    }
  }
}
