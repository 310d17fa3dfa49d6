package dev.lanes.agentdemo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** {@code afterMs}: bounded, and the answer it follows is the endpoint's own. */
class AfterAnswerTest {

  @Test
  void afterMsOutOfItsBoundIsRefusedWithOneLineAndAnAcceptedOneAnswersAsUsual() throws Exception {
    try (ConfigurableApplicationContext app = SpringApplication.run(AgentDemoApp.class);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      HttpResponse<String> tooLong = http.send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + port + "/fast?afterMs=1001")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(tooLong.statusCode()).isEqualTo(400);
      HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + port + "/fast?afterMs=1")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("fast\n");
      assertThat(ok.headers().firstValue("Content-Length")).hasValue("5");
    }
  }
}
