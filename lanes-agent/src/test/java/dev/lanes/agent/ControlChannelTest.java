package dev.lanes.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The control socket: owner-only, published as a property, one request and one answer. */
class ControlChannelTest {

  /** Asks in another thread while this one answers, as the watchdog does between ticks. */
  private static ControlChannel.Answer ask(ControlChannel channel, String... words) throws Exception {
    CompletableFuture<ControlChannel.Answer> answer = CompletableFuture.supplyAsync(() -> {
      try {
        return ControlChannel.ask(channel.socket(), words);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    while (!answer.isDone()) {
      channel.answerWaiting();
      Thread.onSpinWait();
    }
    return answer.get();
  }

  @Test
  void onlyThisUserCanEnterItsDirectoryAndItAnswersOneRequestPerConnection() throws Exception {
    ControlChannel channel = ControlChannel.open(words -> words[0].equals("echo")
        ? new ControlChannel.Answer(true, String.join("|", words))
        : new ControlChannel.Answer(false, "no " + words[0]));
    Path socket = channel.socket();
    try {
      assertThat(System.getProperty(ControlChannel.PROPERTY)).isEqualTo(socket.toString());
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
          .isEqualTo("rwx------");
      assertThat(ask(channel, "echo", "a b", "c")).isEqualTo(new ControlChannel.Answer(true, "echo|a b|c"));
      assertThat(ask(channel, "other")).isEqualTo(new ControlChannel.Answer(false, "no other"));
      assertThat(ask(channel, "x".repeat(ControlChannel.MAX_REQUEST + 1))).isEqualTo(
          new ControlChannel.Answer(false, "a request is one line of at most 4096 bytes"));
      channel.answerWaiting(); // nobody waits: returns at once
    } finally {
      channel.close();
    }
    assertThat(System.getProperty(ControlChannel.PROPERTY)).isNull();
    assertThat(socket.getParent()).doesNotExist();
  }
}
