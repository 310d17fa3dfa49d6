package dev.lanes;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Traces one {@code lane.submit(() -> 1).get()} through lanes-core's files, under the JDK's
 * debugger interface (JDI): a child JVM runs {@link Target} (a platform lane of concurrency 2,
 * warmed up with 2,000 tasks, then one traced submit); this JVM records the method entries and
 * exits of {@code dev.lanes} classes on the submitting thread and on the worker that runs the task,
 * and prints the files visited, the hops and the hops back. A tool run by hand, not a test (a run
 * takes seconds): which of the two workers takes the task varies, and with it which shard of the
 * ring it looks in first, so the hops vary by two between runs.
 *
 * <p><b>Where a thread is</b>: in the file of its topmost {@code dev.lanes} frame (JDK frames are
 * transparent; the traced program's own frames are outside). The stacks are read when the traced
 * submit starts (every thread suspended), then kept by the events: an entry pushes a frame, an exit
 * (a return or a throw) pops one. A <b>hop</b> is a change of a thread's file between two of its
 * events, from one core file to another: into a callee's file at an entry, back to the caller's at
 * an exit. A <b>hop back</b> is a hop into a file the thread had already been in during the trace
 * (and so had left). The window: the submitting thread from the call of {@code submit} to the
 * return of {@code get}; the worker (parked when the submit starts: the program waits for both
 * workers to park) from its wake-up until, after the task, it calls again the method it was
 * parked in (the ring's {@code await}) for its next task, that call excluded; the spins there
 * belong to the next task. Other threads (the other worker, the health thread) are not counted;
 * the tool says how many events they had.
 *
 * <p>Run by hand, from {@code lanes-core} after {@code test-compile} and {@code ../mvnw -q -o
 * dependency:build-classpath -Dmdep.outputFile=target/test.cp -Dmdep.includeScope=test} (JDK 21+):
 * {@code java -cp target/test-classes:target/classes:$(cat target/test.cp) dev.lanes.SubmitTrace
 * [-v]}; {@code -v} lists every hop. (The child JVM needs only lanes-core and HdrHistogram.)
 */
public final class SubmitTrace {
  private static final String TARGET = Target.class.getName();
  private static final long WORKER_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** Per thread: the files of its core frames (bottom first), and what it did during the trace. */
  private static final class Track {
    final String thread;
    final Deque<String> stack = new ArrayDeque<>();
    /** The topmost core method at the start (a parked worker: where it waits), and its depth. */
    Method waitingIn;
    int waitingDepth;
    boolean closed;
    final Set<String> visited = new LinkedHashSet<>();
    final List<String> hops = new ArrayList<>();
    int events;
    int hopsBack;

    Track(String thread) {
      this.thread = thread;
    }

    String where() {
      return stack.peekLast();
    }

    void seed(List<Method> coreFramesBottomFirst) {
      coreFramesBottomFirst.forEach(m -> stack.addLast(fileOf(m)));
      if (!coreFramesBottomFirst.isEmpty()) {
        waitingIn = coreFramesBottomFirst.get(coreFramesBottomFirst.size() - 1);
        waitingDepth = coreFramesBottomFirst.size() - 1;
        visited.add(where());
      }
    }

    /** True at the worker's call, after the task, of the method it was waiting in at the start. */
    boolean waitsAgain(Method entered) {
      return entered.equals(waitingIn) && stack.size() == waitingDepth;
    }

    void entered(String file) {
      String before = where();
      stack.addLast(file);
      moved(before);
    }

    void exited() {
      String before = where();
      stack.pollLast(); // an exit below the seeded stack cannot happen: the seed has every frame
      moved(before);
    }

    private void moved(String before) {
      events++;
      String now = where();
      if (now == null) {
        return;
      }
      if (before != null && !before.equals(now)) {
        boolean back = visited.contains(now);
        hops.add(before + " → " + now + (back ? "  (back)" : ""));
        if (back) {
          hopsBack++;
        }
      }
      visited.add(now);
    }
  }

  private final Map<ThreadReference, Track> tracks = new HashMap<>();
  private MethodEntryRequest entries;
  private MethodExitRequest exits;
  private ThreadReference submitter;
  private ThreadReference worker;
  private boolean workerRanTask;
  private long submitterDoneAt;
  private BreakpointEvent submitterAtEnd;

  private SubmitTrace() {}

  public static void main(String[] args) throws Exception {
    boolean verbose = List.of(args).contains("-v");
    new SubmitTrace().run(verbose);
  }

  private void run(boolean verbose) throws Exception {
    LaunchingConnector launcher = Bootstrap.virtualMachineManager().defaultConnector();
    Map<String, Connector.Argument> launch = launcher.defaultArguments();
    launch.get("main").setValue(TARGET);
    launch.get("options").setValue("-cp " + System.getProperty("java.class.path"));
    VirtualMachine vm = launcher.launch(launch);
    pipe(vm.process().getInputStream(), System.out);
    pipe(vm.process().getErrorStream(), System.err);
    EventRequestManager requests = vm.eventRequestManager();
    ClassPrepareRequest prepare = requests.createClassPrepareRequest();
    prepare.addClassFilter(TARGET);
    prepare.enable();
    entries = requests.createMethodEntryRequest();
    exits = requests.createMethodExitRequest();
    String exclude = SubmitTrace.class.getName() + "*";
    entries.addClassFilter("dev.lanes.*");
    entries.addClassExclusionFilter(exclude);
    exits.addClassFilter("dev.lanes.*");
    exits.addClassExclusionFilter(exclude);
    entries.setSuspendPolicy(EventRequest.SUSPEND_NONE);
    exits.setSuspendPolicy(EventRequest.SUSPEND_NONE);
    vm.resume();
    try {
      pump(vm, requests);
    } catch (VMDisconnectedException e) {
      // the target ended
    }
    print(verbose);
  }

  private void pump(VirtualMachine vm, EventRequestManager requests) throws Exception {
    boolean tracing = false;
    while (true) {
      EventSet set = vm.eventQueue().remove(200);
      if (set == null) {
        if (tracing && submitterAtEnd != null
            && System.nanoTime() - submitterDoneAt > WORKER_GRACE_NANOS) {
          System.err.println("the worker did not wait again; trace cut 10 s after get returned");
          finish(vm);
          tracing = false;
        }
        continue;
      }
      boolean resume = true;
      for (Event event : set) {
        if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
          return;
        }
        if (event instanceof ClassPrepareEvent prepared) {
          ReferenceType target = prepared.referenceType();
          for (String name : List.of("begin", "inTask", "end")) {
            BreakpointRequest at =
                requests.createBreakpointRequest(target.methodsByName(name).get(0).location());
            // begin stops every thread, to read their stacks; the others only the thread at them
            at.setSuspendPolicy(name.equals("begin")
                ? EventRequest.SUSPEND_ALL : EventRequest.SUSPEND_EVENT_THREAD);
            at.enable();
          }
        } else if (event instanceof BreakpointEvent bp) {
          String name = bp.location().method().name();
          if (name.equals("begin")) { // every thread suspended: read the stacks
            submitter = bp.thread();
            for (ThreadReference t : vm.allThreads()) {
              track(t).seed(coreFramesOf(t));
            }
            entries.enable();
            exits.enable();
            tracing = true;
          } else if (name.equals("inTask")) {
            worker = bp.thread();
            workerRanTask = true;
          } else if (name.equals("end")) { // the submitter waits here until the worker is done
            submitterAtEnd = bp;
            submitterDoneAt = System.nanoTime();
            resume = false;
            if (tracks.get(worker).closed) {
              finish(vm);
              tracing = false;
            }
          }
        } else if (tracing && event instanceof MethodEntryEvent entry) {
          Track t = track(entry.thread());
          if (entry.thread().equals(worker) && workerRanTask && t.waitsAgain(entry.method())) {
            t.closed = true; // the worker asks the ring for its next task: the submit is done
            if (submitterAtEnd != null) {
              finish(vm);
              tracing = false;
            }
          } else if (!t.closed) {
            t.entered(fileOf(entry.method()));
          }
        } else if (tracing && event instanceof MethodExitEvent exit) {
          Track t = track(exit.thread());
          if (!t.closed) {
            t.exited();
          }
        }
      }
      if (resume) {
        set.resume();
      }
    }
  }

  private void finish(VirtualMachine vm) {
    entries.disable();
    exits.disable();
    submitterAtEnd.thread().resume();
  }

  private Track track(ThreadReference t) {
    return tracks.computeIfAbsent(t, k -> new Track(k.name()));
  }

  private static List<Method> coreFramesOf(ThreadReference t) {
    List<Method> core = new ArrayList<>();
    try {
      List<StackFrame> frames = t.frames();
      for (int i = frames.size() - 1; i >= 0; i--) {
        Method m = frames.get(i).location().method();
        if (isCore(m)) {
          core.add(m);
        }
      }
    } catch (IncompatibleThreadStateException e) {
      throw new IllegalStateException("thread " + t.name() + " not suspended", e);
    }
    return core;
  }

  private static boolean isCore(Method m) {
    String type = m.declaringType().name();
    return type.startsWith("dev.lanes.") && type.indexOf('.', "dev.lanes.".length()) < 0
        && !type.startsWith(SubmitTrace.class.getName());
  }

  /** The source file a method was compiled from, without {@code .java}. */
  private static String fileOf(Method m) {
    try {
      return m.declaringType().sourceName().replace(".java", "");
    } catch (com.sun.jdi.AbsentInformationException e) {
      String name = m.declaringType().name().substring("dev.lanes.".length());
      return name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
    }
  }

  private void print(boolean verbose) {
    if (worker == null) {
      System.out.println("the traced task never ran");
      return;
    }
    Set<String> files = new LinkedHashSet<>();
    int hops = 0;
    int back = 0;
    Map<String, Track> shown = new LinkedHashMap<>();
    shown.put("submitter", tracks.get(submitter));
    shown.put("worker", tracks.get(worker));
    for (Map.Entry<String, Track> e : shown.entrySet()) {
      Track t = e.getValue();
      files.addAll(t.visited);
      hops += t.hops.size();
      back += t.hopsBack;
      System.out.printf("%-9s (%s): %d events, %d files, %d hops, %d back: %s%n", e.getKey(),
          t.thread, t.events, t.visited.size(), t.hops.size(), t.hopsBack,
          String.join(", ", t.visited));
      if (verbose) {
        t.hops.forEach(h -> System.out.println("    " + h));
      }
    }
    for (Track t : tracks.values()) {
      if (t.events > 0 && !shown.containsValue(t)) {
        System.out.printf("(not counted: %s, %d events, %d hops: %s)%n", t.thread, t.events,
            t.hops.size(), String.join(", ", t.visited));
      }
    }
    System.out.printf(
        "traced submit: %d files, %d hops, %d of them back into a file already left%n",
        files.size(), hops, back);
    System.out.println("files: " + String.join(", ", files));
  }

  private static void pipe(InputStream from, OutputStream to) {
    Thread t = new Thread(() -> {
      try {
        from.transferTo(to);
      } catch (java.io.IOException e) {
        throw new UncheckedIOException(e);
      }
    }, "trace-pipe");
    t.setDaemon(true);
    t.start();
  }

  /** The traced program: a warmed-up platform lane of concurrency 2, and one traced submit. */
  static final class Target {
    private Target() {}

    public static void main(String[] args) throws Exception {
      try (Lane lane = Lane.blocking("traced", 2).build()) {
        for (int i = 0; i < 2_000; i++) {
          lane.submit(() -> 1).get();
        }
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!bothWorkersParked()) { // so that the trace starts from parked workers, every time
          if (System.nanoTime() - giveUp > 0) {
            System.err.println("the workers did not park (are they still named traced-N?)");
            break;
          }
          Thread.yield();
        }
        begin();
        int one = lane.submit(() -> {
          inTask();
          return 1;
        }).get();
        end();
        if (one != 1) {
          throw new AssertionError(one);
        }
      }
    }

    private static boolean bothWorkersParked() {
      return Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.getName().startsWith("traced-") && t.getState() == Thread.State.WAITING)
          .count() == 2;
    }

    /** The tracer starts here (a breakpoint). */
    static void begin() {}

    /** The tracer learns the worker here. */
    static void inTask() {}

    /** The tracer stops here, once the worker is back where it started. */
    static void end() {}
  }
}
