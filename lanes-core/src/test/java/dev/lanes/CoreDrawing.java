package dev.lanes;

import com.tngtech.archunit.core.domain.AccessTarget.FieldAccessTarget;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaFieldAccess.AccessType;
import com.tngtech.archunit.core.domain.Source;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A drawing of lanes-core's structure, from its compiled main classes (ArchUnit; tests excluded):
 * the files, the arrows between them, the circles, the floors and the arrows running back up, and
 * the writes into another file's fields. {@code CoreDrawingTest} and {@code CoreFieldsTest} hold
 * the figures; DESIGN.md ("Measuring the core's shape") gives the method and today's figures.
 *
 * <p><b>File</b>: a source file of {@code dev.lanes} (ArchUnit reads a class's {@code SourceFile}
 * attribute): a nested, local or anonymous class, a lambda's body (which javac puts in its
 * enclosing class) and a second top-level class in the same file (such as {@code SystemTicker} in
 * {@code Ticker.java}) all belong to their file. {@code module-info} is not a file.
 *
 * <p><b>Arrow</b> A → B: A's code names B in some way ArchUnit records as a dependency of the
 * counted {@link Kind kinds} (all of them by default: calls, field reads and writes, types in
 * signatures and fields, inheritance and {@code permits}, instanceof, class literals,
 * annotations); an arrow to itself is not counted, and many uses of B from A make one arrow. A
 * compile-time constant is inlined by javac and leaves no trace; a call through another class's
 * field ({@code ctx.books.takeLive(…)}) is an arrow to the field's class too ({@code LaneBooks}).
 *
 * <p><b>Circles</b>: the strongly connected components with more than one file (Tarjan).
 *
 * <p><b>Floors and arrows back up</b>: within each circle, files are put in order by the greedy
 * heuristic of Eades, Lin and Smyth (1993) for a small feedback arc set (take sinks to the bottom,
 * sources to the top, else the file with the largest out-degree minus in-degree to the top; ties
 * go to the first name, so the drawing is deterministic); the circles themselves are ordered by
 * the arrows between them. An arrow from a file to one placed above it <em>runs back up</em>; only
 * arrows inside a circle can. Without them the arrows form a DAG, and each file stands on the
 * floor just above the highest file it uses by an arrow that runs down (longest-path layering;
 * floor 1: no such arrow); today the lane, which uses most things, is alone at the top.
 *
 * <p>Run by hand, from {@code lanes-core} after {@code test-compile} and {@code ../mvnw -q -o
 * dependency:build-classpath -Dmdep.outputFile=target/test.cp -Dmdep.includeScope=test}: {@code
 * java -cp target/test-classes:target/classes:$(cat target/test.cp) dev.lanes.CoreDrawing
 * [kinds…]}, kinds among {@code CALL FIELD INHERIT SIGNATURE OTHER} (default: all).
 */
final class CoreDrawing {

  /** The kinds of dependency an arrow can be drawn from, after ArchUnit's descriptions. */
  enum Kind {
    /** Calls a method or constructor, or references one ({@code X::m}). */
    CALL,
    /** Reads or writes a field. */
    FIELD,
    /** Extends, implements, or permits (a sealed type names its subclasses). */
    INHERIT,
    /** A type in a field's, parameter's or return type, generic arguments and arrays included. */
    SIGNATURE,
    /** instanceof, a class literal, an annotation, a throws clause, a type parameter's bound. */
    OTHER;

    static Kind of(String description) {
      String verb = outsideBrackets(description);
      if (verb.contains(" calls ") || verb.contains(" references method")
          || verb.contains(" references constructor")) {
        return CALL;
      }
      if (verb.contains(" field")) {
        return FIELD;
      }
      if (verb.contains(" extends ") || verb.contains(" implements ")) {
        return INHERIT;
      }
      if (verb.contains(" has type") || verb.contains(" has generic type")
          || verb.contains(" parameter") || verb.contains(" return type")
          || verb.contains(" component type")) {
        return SIGNATURE;
      }
      return OTHER;
    }

    /** ArchUnit's description with every {@code <…>} (a member or a type, nested too) cut out. */
    private static String outsideBrackets(String description) {
      StringBuilder out = new StringBuilder();
      int depth = 0;
      for (char c : description.toCharArray()) {
        if (c == '<') {
          depth++;
        } else if (c == '>') {
          depth--;
        } else if (depth == 0) {
          out.append(c);
        }
      }
      return out.toString();
    }
  }

  /** A dependency of one file on another, from → to. */
  record Arrow(String from, String to) implements Comparable<Arrow> {
    @Override
    public int compareTo(Arrow o) {
      return Comparator.comparing(Arrow::from).thenComparing(Arrow::to).compare(this, o);
    }

    @Override
    public String toString() {
      return from + " → " + to;
    }
  }

  /** A write of {@code owner.field} from the code of another file, {@code writer}. */
  record ForeignWrite(String owner, String field, String writer)
      implements Comparable<ForeignWrite> {
    @Override
    public int compareTo(ForeignWrite o) {
      return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
      return owner + "." + field + " ← " + writer;
    }
  }

  private static final String PACKAGE = "dev.lanes";

  private final Set<Kind> kinds;
  private final SortedSet<String> files = new TreeSet<>();
  /** Each arrow, with one example: an ArchUnit description (see {@link #addArrow}). */
  private final SortedMap<Arrow, String> arrows = new TreeMap<>();
  /** Each foreign write with the number of places that make it. */
  private final SortedMap<ForeignWrite, Integer> foreignWrites = new TreeMap<>();
  private final List<SortedSet<String>> circles = new ArrayList<>();
  /** All files, top first: the order the floors and back arrows are read from. */
  private final List<String> order = new ArrayList<>();
  private final SortedSet<Arrow> backArrows = new TreeSet<>();
  private final Map<String, Integer> floorOf = new HashMap<>();

  private CoreDrawing(JavaClasses classes, Set<Kind> kinds) {
    this.kinds = kinds.isEmpty() ? EnumSet.allOf(Kind.class) : EnumSet.copyOf(kinds);
    for (JavaClass c : classes) {
      if (isCore(c)) {
        files.add(fileOf(c));
      }
    }
    for (JavaClass c : classes) {
      if (!isCore(c)) {
        continue;
      }
      String from = fileOf(c);
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType();
        if (isCore(target) && !fileOf(target).equals(from)
            && this.kinds.contains(Kind.of(d.getDescription()))) {
          String to = fileOf(target);
          addArrow(from, to, d.getDescription());
        }
      }
      if (this.kinds.contains(Kind.INHERIT) && c.reflect().isSealed()) { // ArchUnit skips `permits`
        for (Class<?> permitted : c.reflect().getPermittedSubclasses()) {
          String to = fileOf(classes.get(permitted));
          if (!to.equals(from)) {
            addArrow(from, to,
                "Class <" + c.getName() + "> permits subclass <" + permitted.getName() + ">");
          }
        }
      }
      for (JavaFieldAccess access : c.getFieldAccessesFromSelf()) {
        FieldAccessTarget field = access.getTarget();
        if (access.getAccessType() == AccessType.SET && isCore(field.getOwner())
            && !fileOf(field.getOwner()).equals(from)) {
          String owner =
              field.getOwner().getName().substring(PACKAGE.length() + 1).replace('$', '.');
          foreignWrites.merge(new ForeignWrite(owner, field.getName(), from),
              1, Integer::sum);
        }
      }
    }
    draw();
  }

  /** Adds the arrow, keeping as its example the most telling use: a call before a type, by text. */
  private void addArrow(String from, String to, String description) {
    arrows.merge(new Arrow(from, to), description,
        (a, b) -> EXAMPLE_ORDER.compare(a, b) <= 0 ? a : b);
  }

  private static final Comparator<String> EXAMPLE_ORDER =
      Comparator.comparing(Kind::of).thenComparing(Comparator.naturalOrder());

  /** The drawing of lanes-core's main classes, as found on the class path, with every kind. */
  static CoreDrawing ofMainClasses() {
    return ofMainClasses(EnumSet.allOf(Kind.class));
  }

  static CoreDrawing ofMainClasses(Set<Kind> kinds) {
    return new CoreDrawing(new ClassFileImporter().importPath(mainClasses()), kinds);
  }

  /** Where {@code Lane} was loaded from: lanes-core's compiled main classes, a folder or a jar. */
  private static Path mainClasses() {
    try {
      return Path.of(Lane.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isCore(JavaClass c) {
    return c.getPackageName().equals(PACKAGE) && !c.getSimpleName().equals("module-info")
        && !c.getName().endsWith(".module-info");
  }

  /** The source file a class was compiled from, without {@code .java}. */
  private static String fileOf(JavaClass c) {
    String name = c.getName().substring(c.getPackageName().length() + 1);
    int nested = name.indexOf('$');
    String topLevel = nested < 0 ? name : name.substring(0, nested);
    return c.getSource().flatMap(Source::getFileName)
        .map(f -> f.endsWith(".java") ? f.substring(0, f.length() - ".java".length()) : f)
        .orElse(topLevel);
  }

  // ---- the figures ----

  SortedSet<String> files() {
    return files;
  }

  SortedMap<Arrow, String> arrows() {
    return arrows;
  }

  /** The circles, largest first (then by first name). */
  List<SortedSet<String>> circles() {
    return circles;
  }

  int largestCircle() {
    return circles.isEmpty() ? 0 : circles.get(0).size();
  }

  SortedSet<Arrow> backArrows() {
    return backArrows;
  }

  /** The number of floors. */
  int floors() {
    return floorOf.values().stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  int floorOf(String file) {
    return floorOf.get(file);
  }

  /** The files on a floor (1 is the bottom), in their drawing order. */
  List<String> floor(int floor) {
    return order.stream().filter(f -> floorOf.get(f) == floor).toList();
  }

  /** Each write into another file's field, with the number of places that make it. */
  SortedMap<ForeignWrite, Integer> foreignWrites() {
    return foreignWrites;
  }

  int foreignWriteCount() {
    return foreignWrites.values().stream().mapToInt(Integer::intValue).sum();
  }

  // ---- the drawing ----

  private Map<String, SortedSet<String>> successors() {
    Map<String, SortedSet<String>> out = new TreeMap<>();
    files.forEach(f -> out.put(f, new TreeSet<>()));
    arrows.keySet().forEach(a -> out.get(a.from()).add(a.to()));
    return out;
  }

  private void draw() {
    Map<String, SortedSet<String>> next = successors();
    List<SortedSet<String>> components = new Tarjan(next).components(); // sinks first
    components.stream().filter(c -> c.size() > 1).forEach(circles::add);
    circles.sort(Comparator.<SortedSet<String>>comparingInt(Set::size).reversed()
        .thenComparing(SortedSet::first));
    // Tarjan yields a component after every component it reaches: reversed, the users come first.
    for (int i = components.size() - 1; i >= 0; i--) {
      order.addAll(greedyOrder(components.get(i), next));
    }
    Map<String, Integer> position = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      position.put(order.get(i), i);
    }
    for (Arrow a : arrows.keySet()) {
      if (position.get(a.from()) > position.get(a.to())) {
        backArrows.add(a);
      }
    }
    for (int i = order.size() - 1; i >= 0; i--) { // bottom up: a file's downward arrows are placed
      String f = order.get(i);
      int floor = 1;
      for (String to : next.get(f)) {
        if (position.get(to) > i) {
          floor = Math.max(floor, floorOf.get(to) + 1);
        }
      }
      floorOf.put(f, floor);
    }
  }

  /** Eades–Lin–Smyth inside one component: returns its files top first. */
  private static List<String> greedyOrder(
      SortedSet<String> component, Map<String, SortedSet<String>> next) {
    SortedSet<String> left = new TreeSet<>(component);
    List<String> top = new ArrayList<>();
    Deque<String> bottom = new ArrayDeque<>();
    while (!left.isEmpty()) {
      boolean moved = true;
      while (moved) {
        moved = false;
        for (String f : List.copyOf(left)) {
          if (outDegree(f, left, next) == 0) {
            bottom.addFirst(f);
            left.remove(f);
            moved = true;
          } else if (inDegree(f, left, next) == 0) {
            top.add(f);
            left.remove(f);
            moved = true;
          }
        }
      }
      if (!left.isEmpty()) {
        String best = left.first();
        for (String f : left) {
          if (outDegree(f, left, next) - inDegree(f, left, next)
              > outDegree(best, left, next) - inDegree(best, left, next)) {
            best = f;
          }
        }
        top.add(best);
        left.remove(best);
      }
    }
    top.addAll(bottom);
    return top;
  }

  private static int outDegree(String f, Set<String> among, Map<String, SortedSet<String>> next) {
    return (int) next.get(f).stream().filter(among::contains).count();
  }

  private static int inDegree(String f, Set<String> among, Map<String, SortedSet<String>> next) {
    return (int) among.stream().filter(g -> next.get(g).contains(f)).count();
  }

  /** Tarjan's strongly connected components, in a deterministic order (files by name). */
  private static final class Tarjan {
    private final Map<String, SortedSet<String>> next;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new TreeSet<>();
    private final List<SortedSet<String>> out = new ArrayList<>();

    Tarjan(Map<String, SortedSet<String>> next) {
      this.next = next;
    }

    List<SortedSet<String>> components() {
      next.keySet().forEach(f -> {
        if (!index.containsKey(f)) {
          visit(f);
        }
      });
      return out;
    }

    private void visit(String f) {
      index.put(f, index.size());
      low.put(f, index.get(f));
      stack.push(f);
      onStack.add(f);
      for (String to : next.get(f)) {
        if (!index.containsKey(to)) {
          visit(to);
          low.put(f, Math.min(low.get(f), low.get(to)));
        } else if (onStack.contains(to)) {
          low.put(f, Math.min(low.get(f), index.get(to)));
        }
      }
      if (low.get(f).equals(index.get(f))) {
        SortedSet<String> component = new TreeSet<>();
        String g;
        do {
          g = stack.pop();
          onStack.remove(g);
          component.add(g);
        } while (!g.equals(f));
        out.add(component);
      }
    }
  }

  // ---- the report ----

  String summary() {
    return String.format("%d files on %d floors, %d arrows, %d of them running back up; "
            + "%d circle(s), largest %d; %d writes into another file's fields (%d distinct)",
        files.size(), floors(), arrows.size(), backArrows.size(), circles.size(), largestCircle(),
        foreignWriteCount(), foreignWrites.size());
  }

  String report() {
    StringBuilder out = new StringBuilder();
    out.append("lanes-core drawn from ").append(kinds).append('\n')
        .append(summary()).append("\n\n");
    out.append("Floors (top first):\n");
    for (int floor = floors(); floor >= 1; floor--) {
      out.append(String.format("  %2d  %s%n", floor, String.join(", ", floor(floor))));
    }
    out.append("\nArrows running back up (").append(backArrows.size()).append("):\n");
    for (Arrow a : backArrows) {
      out.append(String.format("  %-40s e.g. %s%n", a, shorten(arrows.get(a))));
    }
    out.append("\nCircles (").append(circles.size()).append("):\n");
    for (SortedSet<String> c : circles) {
      out.append("  ").append(c.size()).append(": ").append(String.join(", ", c)).append('\n');
    }
    out.append("\nWrites into another file's fields (").append(foreignWriteCount())
        .append(" places, ").append(foreignWrites.size()).append(" distinct):\n");
    foreignWrites.forEach((w, n) -> out.append(String.format("  %-55s ×%d%n", w, n)));
    return out.toString();
  }

  private static String shorten(String description) {
    return description.replace(PACKAGE + ".", "").replaceAll(" in \\([^)]*\\)$", "");
  }

  public static void main(String[] args) {
    Set<Kind> kinds = EnumSet.noneOf(Kind.class);
    for (String a : args) {
      kinds.add(Kind.valueOf(a));
    }
    System.out.print(ofMainClasses(kinds).report());
  }
}
