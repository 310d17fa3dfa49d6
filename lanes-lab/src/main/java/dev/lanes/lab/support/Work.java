package dev.lanes.lab.support;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The task bodies the experiments run: CPU-bound, file IO and network IO. Stateless. */
public final class Work {

  private static final int CPU_ARRAY = 64 * 1024;

  /** Steps of {@link #cpu} per unit: about 1 ms on the 2-core machine the lab was tuned on. */
  private static final int STEPS_PER_UNIT = 470_000;

  private Work() {}

  /**
   * Computes for about {@code units} × 1 ms of CPU on a typical machine: random reads and writes
   * over a 256 KB array (the cache-unfriendly work of the source writing). Returns a checksum so
   * the JIT cannot drop the loop.
   */
  public static long cpu(int units, long seed) {
    int[] data = new int[CPU_ARRAY];
    long x = seed | 1;
    long sum = 0;
    int steps = units * STEPS_PER_UNIT;
    for (int i = 0; i < steps; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      int at = (int) (x & (CPU_ARRAY - 1));
      data[at] += (int) x;
      sum += data[(at * 31) & (CPU_ARRAY - 1)];
    }
    return sum;
  }

  /**
   * A short computation without memory traffic: {@code steps} xorshift steps. Returns the state so
   * the JIT cannot drop the loop.
   */
  public static long xorshift(long seed, int steps) {
    long x = seed | 1;
    for (int i = 0; i < steps; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  /** Writes {@code lines} lines to a new file under {@code dir}, reads its size, deletes it. */
  public static long fileIo(Path dir, String name, int lines) {
    Path file = dir.resolve(name);
    try {
      try (BufferedWriter w = Files.newBufferedWriter(file)) {
        for (int i = 0; i < lines; i++) {
          w.write("task ");
          w.write(name);
          w.write(" line ");
          w.write(Integer.toString(i));
          w.newLine();
        }
      }
      long size = Files.size(file);
      Files.delete(file);
      return size;
    } catch (IOException e) {
      throw new UncheckedIOException("file IO under " + dir + " failed", e);
    }
  }

  /** GET {@code uri} and return the status code. */
  public static int http(HttpClient client, URI uri) {
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + uri + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET " + uri, e);
    }
  }

  /** Sleeps (a stand-in for waiting on something slow); restores the interrupt if woken. */
  public static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
