package dev.lanes.alerts;

import dev.lanes.Ticker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Posts each alert as JSON to a webhook with the JDK's {@link HttpClient}, asynchronously: {@link
 * #send} returns at once, whatever the server does. The body is the {@linkplain Format#GENERIC
 * generic shape} (every figure named) or {@linkplain Format#SLACK Slack's} ({@code text} and
 * {@code blocks}, accepted by a Slack incoming webhook and by services that take its shape).
 *
 * <p>A failure — the server unreachable, slower than the request timeout, or answering other than
 * 2xx — is logged (logger {@code dev.lanes.alerts}, WARNING) at most once per failure interval,
 * with the count of the ones held back. At most {@code maxInFlight} requests are outstanding;
 * an alert beyond that is dropped and counted as a failure rather than queued without bound.
 *
 * <p><b>Concurrency design.</b> Thread-safe. {@code inFlight} (a semaphore) bounds outstanding
 * requests: taken in {@code send}, given back when the request completes, on the client's own
 * threads. The counts are atomics read without a snapshot. {@link #close()} stops taking alerts
 * and closes the client, which waits for the requests in flight (each bounded by the request
 * timeout).
 */
public final class WebhookSink implements AlertSink, AutoCloseable {

  /** The body's shape. */
  public enum Format {
    /**
     * {@code {"lane", "kind", "status": "firing"|"resolved", "at", "headline", "text",
     * "evidence": {health, queueWait, runTime, oldestQueuedMs, running, concurrency, workers,
     * queued, queueCapacity, counts}, "figures", "diagnostic", "workerStacks"}}.
     */
    GENERIC,
    /**
     * Slack's incoming-webhook shape: {@code {"text": headline, "blocks": [sections]}}: the
     * headline, the evidence, the diagnostic and the workers' stacks, each within Slack's 3,000
     * characters per section (longer text is cut, saying how much).
     */
    SLACK
  }

  private final URI url;
  private final Format format;
  private final Duration requestTimeout;
  private final int maxInFlight;
  private final HttpClient client;
  private final Semaphore inFlight;
  private final FailureLog failures;
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean closed;

  private WebhookSink(Builder b) {
    this.url = b.url;
    this.format = b.format;
    this.requestTimeout = b.requestTimeout;
    this.maxInFlight = b.maxInFlight;
    this.inFlight = new Semaphore(b.maxInFlight);
    this.failures = new FailureLog(b.ticker, b.failureLogInterval);
    this.client = HttpClient.newBuilder().connectTimeout(b.connectTimeout).build();
  }

  /**
   * {@return a builder of a sink posting to {@code url}, generic format unless changed}
   *
   * @param url an http or https URL
   * @throws NullPointerException if {@code url} is null
   * @throws IllegalArgumentException if {@code url} is not absolute http or https
   */
  public static Builder to(URI url) {
    return new Builder(url);
  }

  @Override
  public void send(Alert alert) {
    if (closed) {
      failure(alert, "the sink is closed");
      return;
    }
    if (!inFlight.tryAcquire()) {
      failure(alert, maxInFlight + " requests still in flight; alert dropped");
      return;
    }
    try {
      HttpRequest request = HttpRequest.newBuilder(url)
          .timeout(requestTimeout)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(AlertJson.body(alert, format)))
          .build();
      client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
          .whenComplete((response, error) -> {
            inFlight.release();
            if (error != null) {
              failure(alert, describe(error));
            } else if (response.statusCode() / 100 != 2) {
              failure(alert, "HTTP " + response.statusCode());
            } else {
              delivered.incrementAndGet();
            }
          });
    } catch (RuntimeException e) {
      inFlight.release();
      failure(alert, describe(e));
    }
  }

  private void failure(Alert alert, String why) {
    failed.incrementAndGet();
    failures.failed("lanes alerts: webhook " + url + " failed (" + why + "); alert "
        + alert.kind() + " for lane \"" + alert.lane() + "\" not delivered");
  }

  /** The failure without its wrappers, with its cause: "ConnectException (ClosedChannelException)". */
  private static String describe(Throwable error) {
    Throwable t = error;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    String s = name(t);
    if (t.getCause() != null && t.getCause() != t) {
      s += " (" + name(t.getCause()) + ")";
    }
    return s;
  }

  private static String name(Throwable t) {
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /** {@return alerts the server accepted (answered 2xx)} */
  public long delivered() {
    return delivered.get();
  }

  /** {@return alerts not delivered: refused, unanswered, timed out, or dropped} */
  public long failed() {
    return failed.get();
  }

  /** Takes no more alerts; waits for the requests in flight, each at most the request timeout. */
  @Override
  public void close() {
    closed = true;
    client.close();
  }

  @Override
  public String toString() {
    return "WebhookSink[" + url + ", " + format + ", delivered " + delivered + ", failed "
        + failed + "]";
  }

  /** Settings of a {@link WebhookSink}; each given at most once. */
  public static final class Builder {
    /** Longest connect or request timeout, and longest failure-log interval. */
    public static final Duration MAX_DURATION = Duration.ofHours(1);
    /** Most requests a sink keeps outstanding. */
    public static final int MAX_IN_FLIGHT = 1024;

    private final URI url;
    private final java.util.Set<String> given = new java.util.HashSet<>();
    private Format format = Format.GENERIC;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(10);
    private int maxInFlight = 16;
    private Duration failureLogInterval = Duration.ofMinutes(1);
    private Ticker ticker = Ticker.system();

    private Builder(URI url) {
      Objects.requireNonNull(url, "webhook url must not be null");
      String scheme = url.getScheme();
      if (!url.isAbsolute() || url.getHost() == null
          || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
        throw new IllegalArgumentException(
            "webhook url must be an absolute http or https URL, was " + url);
      }
      this.url = url;
    }

    /**
     * The body's shape (default {@link Format#GENERIC}).
     *
     * @param format the shape
     * @return this builder
     */
    public Builder format(Format format) {
      Objects.requireNonNull(format, "webhook " + url + ": format must not be null");
      once("format");
      this.format = format;
      return this;
    }

    /**
     * How long to wait for a connection (default 5 s).
     *
     * @param timeout above 0, at most {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder connectTimeout(Duration timeout) {
      positive("connectTimeout", timeout);
      once("connectTimeout");
      this.connectTimeout = timeout;
      return this;
    }

    /**
     * How long to wait for the answer once connected (default 10 s); a slower server counts as
     * a failure.
     *
     * @param timeout above 0, at most {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder requestTimeout(Duration timeout) {
      positive("requestTimeout", timeout);
      once("requestTimeout");
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * Most requests outstanding at once (default 16); an alert beyond is dropped, counted and
     * logged as a failure.
     *
     * @param max 1 to {@value #MAX_IN_FLIGHT}
     * @return this builder
     */
    public Builder maxInFlight(int max) {
      if (max < 1 || max > MAX_IN_FLIGHT) {
        throw new IllegalArgumentException("webhook " + url + ": maxInFlight must be between 1 and "
            + MAX_IN_FLIGHT + ", was " + max);
      }
      once("maxInFlight");
      this.maxInFlight = max;
      return this;
    }

    /**
     * At most one failure line per this interval (default 1 min).
     *
     * @param interval above 0, at most {@link #MAX_DURATION}
     * @return this builder
     */
    public Builder failureLogInterval(Duration interval) {
      positive("failureLogInterval", interval);
      once("failureLogInterval");
      this.failureLogInterval = interval;
      return this;
    }

    /**
     * The clock of the failure-log interval (default {@link Ticker#system()}); for tests.
     *
     * @param ticker the clock
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      Objects.requireNonNull(ticker, "webhook " + url + ": ticker must not be null");
      once("ticker");
      this.ticker = ticker;
      return this;
    }

    /** {@return the sink; its HTTP client is made now} */
    public WebhookSink build() {
      return new WebhookSink(this);
    }

    private Duration positive(String setting, Duration d) {
      Objects.requireNonNull(d, "webhook " + url + ": " + setting + " must not be null");
      if (d.isNegative() || d.isZero() || d.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException("webhook " + url + ": " + setting
            + " must be > 0 and at most " + MAX_DURATION + ", was " + d);
      }
      return d;
    }

    private void once(String setting) {
      if (!given.add(setting)) {
        throw new IllegalStateException("webhook " + url + ": " + setting + " was already set");
      }
    }
  }
}
