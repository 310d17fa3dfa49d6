package dev.lanes.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * HTTP/1.1 on one raw socket, so a test owns the connection's life (an HTTP client's pool would
 * open, keep and close connections on its own).
 */
final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final BufferedReader in;
  private final OutputStream out;

  RawHttp(int port, Duration patience) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout((int) patience.toMillis());
    in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
    out = socket.getOutputStream();
  }

  /** Writes {@code count} GETs of {@code path} in one write (pipelined when more than one). */
  void send(String path, int count) throws IOException {
    out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").repeat(count)
        .getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** Reads one HTTP/1.1 200 response with a Content-Length and returns its body. */
  String readBody() throws IOException {
    String status = in.readLine();
    assertThat(status).startsWith("HTTP/1.1 200");
    int length = -1;
    for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    assertThat(length).as("Content-Length").isNotNegative();
    char[] body = new char[length];
    for (int read = 0; read < length; ) {
      int n = in.read(body, read, length - read);
      assertThat(n).as("bytes of the body").isPositive();
      read += n;
    }
    return new String(body);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
