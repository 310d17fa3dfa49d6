package dev.lanes.agent;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Function;

/**
 * How {@code ./lanes attach} talks to an agent that runs already, without loading it again (each
 * load makes the JDK print its dynamic-agent warning in the application's log): a Unix-domain
 * socket in a fresh directory only this user can enter (mode {@code rwx------}), its path
 * published as the system property {@value #PROPERTY}, which the attach API reads without loading
 * anything.
 *
 * <p>The protocol: the client writes one request (a line of tab-separated words) and shuts its
 * output; the agent answers {@code ok} or {@code refused} on the first line, then the text, and
 * closes.
 *
 * <p><b>Concurrency design.</b> Answered by the watchdog thread after each tick (the agent adds no
 * thread): {@link #answerWaiting} accepts the clients waiting now, without blocking, and answers
 * them one by one, so commands never run concurrently with each other nor with a tick. A client
 * gets {@value #CLIENT_TIMEOUT_MS} ms to send its request (at most {@value #MAX_REQUEST} bytes) and
 * read the answer; one that takes longer is dropped.
 */
final class ControlChannel implements AutoCloseable {
  static final String PROPERTY = "lanes.agent.control";
  static final int MAX_REQUEST = 4096;
  static final int CLIENT_TIMEOUT_MS = 1_000;
  /** Clients answered per call, so that a flood cannot hold the watchdog. */
  static final int CLIENTS_PER_CALL = 8;
  static final String OK = "ok";
  static final String REFUSED = "refused";

  /** A command's answer: {@code ok} false when it was refused (the text says why). */
  record Answer(boolean ok, String text) {}

  private final ServerSocketChannel server;
  private final Path dir;
  private final Path socket;
  private final Function<String[], Answer> commands;

  private ControlChannel(ServerSocketChannel server, Path dir, Path socket,
      Function<String[], Answer> commands) {
    this.server = server;
    this.dir = dir;
    this.socket = socket;
    this.commands = commands;
  }

  /** Opens the socket and publishes its path; {@link #answerWaiting} answers its clients. */
  static ControlChannel open(Function<String[], Answer> commands) throws IOException {
    Path dir = Files.createTempDirectory("lanes-agent-control",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path socket = dir.resolve("socket");
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(socket));
      server.configureBlocking(false);
    } catch (IOException | RuntimeException e) {
      server.close();
      Files.deleteIfExists(socket);
      Files.deleteIfExists(dir);
      throw e;
    }
    dir.toFile().deleteOnExit();
    socket.toFile().deleteOnExit(); // deleted first: deleteOnExit runs in reverse order
    System.setProperty(PROPERTY, socket.toString());
    return new ControlChannel(server, dir, socket, commands);
  }

  Path socket() {
    return socket;
  }

  /** Answers the clients that wait now (at most {@value #CLIENTS_PER_CALL}); never blocks on one. */
  void answerWaiting() {
    for (int i = 0; i < CLIENTS_PER_CALL && server.isOpen(); i++) {
      try (SocketChannel client = server.accept()) {
        if (client == null) {
          return;
        }
        answer(client);
      } catch (IOException e) {
        // a client that went away or took too long: the next one
      }
    }
  }

  private void answer(SocketChannel client) throws IOException {
    client.configureBlocking(false);
    long deadline = System.nanoTime() + CLIENT_TIMEOUT_MS * 1_000_000L;
    try (Selector selector = Selector.open()) {
      SelectionKey key = client.register(selector, SelectionKey.OP_READ);
      ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST + 1);
      boolean tooLong = fill(client, in, selector, deadline);
      // The rest, left unread, would reset the connection before the client reads the refusal.
      for (ByteBuffer rest = ByteBuffer.allocate(MAX_REQUEST); tooLong; rest.clear()) {
        if (!fill(client, rest, selector, deadline)) {
          break;
        }
      }
      Answer answer = !tooLong
          ? commands.apply(new String(in.array(), 0, in.position(), StandardCharsets.UTF_8)
              .strip().split("\t"))
          : new Answer(false, "a request is one line of at most " + MAX_REQUEST + " bytes");
      String text = (answer.ok() ? OK : REFUSED) + "\n" + answer.text();
      ByteBuffer out = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      key.interestOps(SelectionKey.OP_WRITE);
      while (out.hasRemaining()) {
        if (client.write(out) == 0) {
          await(selector, deadline);
        }
      }
    }
  }

  /** Reads into {@code buffer} until the client's end or a full buffer; true if full. */
  private static boolean fill(SocketChannel client, ByteBuffer buffer, Selector selector,
      long deadline) throws IOException {
    while (buffer.hasRemaining()) {
      int n = client.read(buffer);
      if (n < 0) {
        return false;
      }
      if (n == 0) {
        await(selector, deadline);
      }
    }
    return true;
  }

  private static void await(Selector selector, long deadline) throws IOException {
    long left = (deadline - System.nanoTime()) / 1_000_000;
    if (left <= 0) {
      throw new IOException("the client took longer than " + CLIENT_TIMEOUT_MS + " ms");
    }
    selector.select(left);
    selector.selectedKeys().clear();
  }

  /** Sends one request to the agent behind {@code socket} and returns its answer. */
  static Answer ask(Path socket, String... words) throws IOException {
    try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      ByteBuffer out = ByteBuffer.wrap((String.join("\t", words) + "\n").getBytes(StandardCharsets.UTF_8));
      while (out.hasRemaining()) {
        c.write(out);
      }
      c.shutdownOutput();
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      ByteBuffer in = ByteBuffer.allocate(8192);
      while (c.read(in) >= 0) {
        bytes.write(in.array(), 0, in.position());
        in.clear();
      }
      String text = bytes.toString(StandardCharsets.UTF_8);
      int nl = text.indexOf('\n');
      String status = nl < 0 ? text : text.substring(0, nl);
      return new Answer(status.equals(OK), nl < 0 ? "" : text.substring(nl + 1));
    }
  }

  @Override public void close() throws IOException {
    System.clearProperty(PROPERTY);
    server.close();
    Files.deleteIfExists(socket);
    Files.deleteIfExists(dir);
  }
}
