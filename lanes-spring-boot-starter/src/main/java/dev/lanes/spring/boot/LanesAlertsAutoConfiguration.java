package dev.lanes.spring.boot;

import dev.lanes.Lanes;
import dev.lanes.alerts.AlertDedupe;
import dev.lanes.alerts.AlertSink;
import dev.lanes.alerts.LaneAlerts;
import dev.lanes.alerts.WebhookSink;
import dev.lanes.redis.RedisAlertDedupe;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * With lanes-alerts on the class path: a {@link LaneAlerts} bean watching every lane of the
 * {@link Lanes} bean (those added later too), configured by {@code lanes.alerts.*}, logging each
 * alert and posting it to {@code lanes.alerts.webhook.url} when set; with {@code
 * lanes.alerts.dedupe.redis-uri} (and lanes-redis), one alert per lane episode across the
 * instances on that Redis. Closed before the lanes.
 */
@AutoConfiguration(after = LanesAutoConfiguration.class)
@ConditionalOnClass(LaneAlerts.class)
@ConditionalOnBooleanProperty(name = "lanes.alerts.enabled", matchIfMissing = true)
@ConditionalOnBean(Lanes.class)
@EnableConfigurationProperties(LanesAlertsProperties.class)
public class LanesAlertsAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  LaneAlerts lanesAlerts(Lanes lanes, LanesAlertsProperties p, ApplicationContext context) {
    LaneAlerts.Builder b = LaneAlerts.builder();
    setting("lanes.alerts.saturated-for", p.getSaturatedFor(), () -> b.saturatedFor(p.getSaturatedFor()));
    setting("lanes.alerts.rejections-per-second", p.getRejectionsPerSecond() + " over "
        + p.getRejectionWindow(), () -> b.rejectionsPerSecond(p.getRejectionsPerSecond(), p.getRejectionWindow()));
    setting("lanes.alerts.silence", p.getSilence(), () -> b.silence(p.getSilence()));
    setting("lanes.alerts.check-interval", p.getCheckInterval(), () -> b.checkInterval(p.getCheckInterval()));
    if (p.isRecoveryMessages()) {
      b.recoveryMessages();
    }
    boolean log = p.getLogLevel() != System.Logger.Level.OFF;
    if (log) {
      b.sink(AlertSink.log(p.getLogLevel()));
    }
    LanesAlertsProperties.Webhook w = p.getWebhook();
    if (w.getUrl() != null) {
      WebhookSink.Builder hook = setting("lanes.alerts.webhook.url", w.getUrl(), () -> WebhookSink.to(w.getUrl()));
      setting("lanes.alerts.webhook.format", w.getFormat(), () -> hook.format(w.getFormat()));
      setting("lanes.alerts.webhook.connect-timeout", w.getConnectTimeout(), () -> hook.connectTimeout(w.getConnectTimeout()));
      setting("lanes.alerts.webhook.request-timeout", w.getRequestTimeout(), () -> hook.requestTimeout(w.getRequestTimeout()));
      b.sink(hook.build());
    } else if (!log) {
      throw new LanesPropertyException("lanes.alerts.log-level", p.getLogLevel(),
          "with no lanes.alerts.webhook.url either, alerts would go nowhere; set one, or"
              + " lanes.alerts.enabled=false");
    }
    LanesAlertsProperties.Dedupe d = p.getDedupe();
    if (d.getRedisUri() != null) {
      if (!ClassUtils.isPresent(REDIS_DEDUPE, context.getClassLoader())) {
        throw new LanesPropertyException("lanes.alerts.dedupe.redis-uri", d.getRedisUri(),
            "needs dev.lanes:lanes-redis on the class path (" + REDIS_DEDUPE + ")");
      }
      b.dedupe(setting("lanes.alerts.dedupe.redis-uri", d.getRedisUri() + " (call-timeout "
          + d.getCallTimeout() + ")", () -> RedisDedupe.to(d.getRedisUri(), d.getCallTimeout())));
    }
    LaneAlerts alerts = b.build();
    alerts.watch(lanes);
    return alerts;
  }

  private static final String REDIS_DEDUPE = "dev.lanes.redis.RedisAlertDedupe";

  /** Touches lanes-redis only when called, so the starter runs without it. */
  private static final class RedisDedupe {
    static AlertDedupe to(String uri, Duration callTimeout) {
      return RedisAlertDedupe.to(uri, callTimeout);
    }
  }

  /** Applies one setting; a value lanes-alerts refuses stops startup naming the property. */
  private static <T> T setting(String property, Object value, Supplier<T> apply) {
    try {
      return apply.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new LanesPropertyException(property, value, e.getMessage());
    }
  }
}
