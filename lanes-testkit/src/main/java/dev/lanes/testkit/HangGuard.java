package dev.lanes.testkit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Turns a hung test into a failure that explains itself: when JUnit's timeout fires (every
 * module sets {@code junit.jupiter.execution.timeout.default} and the separate-thread mode in the
 * parent POM, so even a test stuck in a non-interruptible wait fails), this prints a dump of
 * every thread to standard error before the failure is reported.
 *
 * <p>Registered for every test class through JUnit's extension auto-detection
 * ({@code META-INF/services}).
 */
public final class HangGuard implements TestExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    if (isTimeout(failure)) {
      System.err.println(
          "=== lanes HangGuard: " + context.getDisplayName() + " timed out; thread dump follows ===");
      System.err.println(threadDump());
    }
    throw failure;
  }

  private static boolean isTimeout(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** Every live platform thread with its full stack, locks and synchronizers. */
  public static String threadDump() {
    StringBuilder out = new StringBuilder();
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      out.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
      if (info.getLockName() != null) {
        out.append(" on ").append(info.getLockName());
      }
      out.append('\n');
      for (StackTraceElement frame : info.getStackTrace()) {
        out.append("    at ").append(frame).append('\n');
      }
      out.append('\n');
    }
    return out.toString();
  }
}
