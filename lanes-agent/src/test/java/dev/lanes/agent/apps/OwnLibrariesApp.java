package dev.lanes.agent.apps;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * An application whose libraries (its own Byte Buddy and Jackson 3, the agent's shaded ones'
 * originals) are loaded by a child class loader, as in a Spring Boot fat jar, a webapp or a plugin:
 * the child asks its parent, the class path with the agent jar on it, first. {@link
 * dev.lanes.agent.apps.libuser.LibraryUser} is defined by the child, so its references resolve the
 * same way. Prints what it did; the test compares the output with and without the agent.
 *
 * <p>Arguments: the Byte Buddy jar, the jackson-core jar, then the classes to load by name.
 */
public final class OwnLibrariesApp {
  public static void main(String[] args) throws Exception {
    URL[] urls = {Path.of(args[0]).toUri().toURL(), Path.of(args[1]).toUri().toURL()};
    try (ChildLoader child = new ChildLoader(urls)) {
      for (int i = 2; i < args.length; i++) {
        try {
          Class<?> c = Class.forName(args[i], false, child);
          System.out.println(args[i] + " loaded by the child: " + (c.getClassLoader() == child));
        } catch (LinkageError | ClassNotFoundException e) {
          System.out.println(args[i] + " failed: " + e);
        }
      }
      @SuppressWarnings("unchecked")
      Supplier<String> user = (Supplier<String>) child
          .loadClass("dev.lanes.agent.apps.libuser.LibraryUser").getConstructor().newInstance();
      System.out.println(user.get());
    }
  }

  /** Parent first, as class loaders are, except for the class that uses the libraries. */
  static final class ChildLoader extends URLClassLoader {
    private static final String OWN = "dev.lanes.agent.apps.libuser.";

    ChildLoader(URL[] urls) {
      super(urls, ClassLoader.getSystemClassLoader());
    }

    @Override protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith(OWN)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          String file = name.replace('.', '/') + ".class";
          try (InputStream in = getParent().getResourceAsStream(file)) {
            if (in == null) {
              throw new ClassNotFoundException(name);
            }
            byte[] bytes = in.readAllBytes();
            c = defineClass(name, bytes, 0, bytes.length);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return c;
      }
    }
  }
}
