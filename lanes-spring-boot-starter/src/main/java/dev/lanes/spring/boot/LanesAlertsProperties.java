package dev.lanes.spring.boot;

import dev.lanes.alerts.WebhookSink;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code lanes.alerts.*}: alerts on the declared lanes' health (module {@code lanes-alerts} on the
 * class path), to the log and, when a URL is set, a webhook.
 *
 * <pre>
 * lanes.alerts.saturated-for=30s
 * lanes.alerts.rejections-per-second=5
 * lanes.alerts.silence=15m
 * lanes.alerts.webhook.url=https://hooks.slack.com/services/…
 * lanes.alerts.webhook.format=slack
 * </pre>
 */
@ConfigurationProperties("lanes.alerts")
public class LanesAlertsProperties {

  /** Whether the declared lanes are watched (when lanes-alerts is on the class path). */
  private boolean enabled = true;

  /** Alert when a lane has been SATURATED or worse for this long. */
  private Duration saturatedFor = Duration.ofSeconds(30);

  /** Alert when a lane refuses or drops more tasks than this a second, over rejection-window. */
  private double rejectionsPerSecond = 1.0;

  /** The window the refusal rate is counted over. */
  private Duration rejectionWindow = Duration.ofMinutes(1);

  /** No two alerts of one kind for one lane less than this apart. */
  private Duration silence = Duration.ofMinutes(15);

  /** Also send a message when an alerted episode ends. */
  private boolean recoveryMessages;

  /** How often the lanes are checked. */
  private Duration checkInterval = Duration.ofSeconds(1);

  /** Level of the log line of each alert (logger dev.lanes.alerts); OFF for none. */
  private System.Logger.Level logLevel = System.Logger.Level.WARNING;

  private final Webhook webhook = new Webhook();

  private final Dedupe dedupe = new Dedupe();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getSaturatedFor() {
    return saturatedFor;
  }

  public void setSaturatedFor(Duration saturatedFor) {
    this.saturatedFor = saturatedFor;
  }

  public double getRejectionsPerSecond() {
    return rejectionsPerSecond;
  }

  public void setRejectionsPerSecond(double rejectionsPerSecond) {
    this.rejectionsPerSecond = rejectionsPerSecond;
  }

  public Duration getRejectionWindow() {
    return rejectionWindow;
  }

  public void setRejectionWindow(Duration rejectionWindow) {
    this.rejectionWindow = rejectionWindow;
  }

  public Duration getSilence() {
    return silence;
  }

  public void setSilence(Duration silence) {
    this.silence = silence;
  }

  public boolean isRecoveryMessages() {
    return recoveryMessages;
  }

  public void setRecoveryMessages(boolean recoveryMessages) {
    this.recoveryMessages = recoveryMessages;
  }

  public Duration getCheckInterval() {
    return checkInterval;
  }

  public void setCheckInterval(Duration checkInterval) {
    this.checkInterval = checkInterval;
  }

  public System.Logger.Level getLogLevel() {
    return logLevel;
  }

  public void setLogLevel(System.Logger.Level logLevel) {
    this.logLevel = logLevel;
  }

  public Webhook getWebhook() {
    return webhook;
  }

  public Dedupe getDedupe() {
    return dedupe;
  }

  /**
   * {@code lanes.alerts.dedupe.*}: one alert per lane episode per lane name across the instances
   * of the service on one Redis (needs lanes-redis on the class path).
   */
  public static class Dedupe {
    /** The shared Redis, e.g. redis://host:6379; unset: every instance sends its own alerts. */
    private String redisUri;

    /** The most a claim on Redis may take; a failed claim sends the alert anyway (fail open). */
    private Duration callTimeout = Duration.ofSeconds(1);

    public String getRedisUri() {
      return redisUri;
    }

    public void setRedisUri(String redisUri) {
      this.redisUri = redisUri;
    }

    public Duration getCallTimeout() {
      return callTimeout;
    }

    public void setCallTimeout(Duration callTimeout) {
      this.callTimeout = callTimeout;
    }
  }

  /** {@code lanes.alerts.webhook.*}: where alerts are posted as JSON. */
  public static class Webhook {
    /** The webhook's http or https URL; unset: no webhook. */
    private URI url;

    /** The body's shape: generic (every figure named) or slack (text and blocks). */
    private WebhookSink.Format format = WebhookSink.Format.GENERIC;

    /** How long to wait for a connection. */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /** How long to wait for the answer; a slower server counts as a failure (logged once a minute at most). */
    private Duration requestTimeout = Duration.ofSeconds(10);

    public URI getUrl() {
      return url;
    }

    public void setUrl(URI url) {
      this.url = url;
    }

    public WebhookSink.Format getFormat() {
      return format;
    }

    public void setFormat(WebhookSink.Format format) {
      this.format = format;
    }

    public Duration getConnectTimeout() {
      return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }
  }
}
