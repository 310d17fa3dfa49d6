package dev.lanes.lab;

import dev.lanes.lab.support.LocalHttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * What every experiment shares: the scale (quick or full), the seed, the core count, a temporary
 * folder for file IO (removed on close), a local HTTP server for network IO and a client for it.
 * The folder, server and client are made lazily by the first caller; task bodies on lane
 * threads call these getters too, so the lazy getters and {@link #close()} are synchronized on
 * this context (the monitor also publishes the fields).
 */
public final class LabContext implements AutoCloseable {

  private final boolean quick;
  private final long seed;
  private final int cores;
  private final Consumer<String> status;
  private Path tempDir;
  private LocalHttpServer server;
  private HttpClient client;

  public LabContext(boolean quick, long seed, Consumer<String> status) {
    this.quick = quick;
    this.seed = seed;
    this.cores = Runtime.getRuntime().availableProcessors();
    this.status = status;
  }

  public boolean quick() {
    return quick;
  }

  public long seed() {
    return seed;
  }

  public int cores() {
    return cores;
  }

  /** {@code quick} in a quick run, {@code full} otherwise. */
  public int scale(int quick, int full) {
    return this.quick ? quick : full;
  }

  /** Shows what the experiment is doing now on the progress line. */
  public void status(String what) {
    status.accept(what);
  }

  /** A folder for file IO under the system's temporary folder; removed when the lab ends. */
  public synchronized Path tempDir() {
    if (tempDir == null) {
      try {
        tempDir = Files.createTempDirectory("lanes-lab-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a temporary folder for file IO", e);
      }
    }
    return tempDir;
  }

  /** The shared local server (virtual thread per request), for experiments that only call it. */
  public synchronized LocalHttpServer server() {
    if (server == null) {
      server = LocalHttpServer.startOnVirtualThreads();
    }
    return server;
  }

  public synchronized HttpClient client() {
    if (client == null) {
      client = newClient();
    }
    return client;
  }

  /** A new HTTP/1.1 client for 127.0.0.1; the caller closes it. */
  public static HttpClient newClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    if (tempDir != null) {
      deleteTree(tempDir);
    }
  }

  static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + root, e);
    }
  }
}
