package dev.lanes.alerts;

import dev.lanes.Distribution;
import dev.lanes.LaneStats;
import dev.lanes.TaskOutcome;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The bodies a {@link WebhookSink} posts: the generic shape and Slack's. Stateless. */
final class AlertJson {
  /** Slack refuses a section whose text is longer than 3,000 characters. */
  static final int SLACK_SECTION_LIMIT = 3000;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private AlertJson() {}

  static String body(Alert alert, WebhookSink.Format format) {
    return JSON.writeValueAsString(switch (format) {
      case GENERIC -> generic(alert);
      case SLACK -> slack(alert);
    });
  }

  /**
   * Every figure with a name: {@code lane, kind, status, conditions[…], at, headline, text,
   * evidence{…}, figures{…}, diagnostic, workerStacks}.
   */
  static ObjectNode generic(Alert alert) {
    ObjectNode root = JSON.createObjectNode();
    root.put("lane", alert.lane());
    root.put("kind", alert.kind().name());
    root.put("status", alert.resolved() ? "resolved" : "firing");
    var conditions = root.putArray("conditions");
    alert.conditions().forEach(k -> conditions.add(k.name()));
    root.put("at", alert.at().toString());
    root.put("headline", alert.headline());
    root.put("text", alert.text());
    LaneStats s = alert.stats();
    ObjectNode evidence = root.putObject("evidence");
    evidence.put("state", alert.state().name());
    evidence.put("health", s.health().name());
    distribution(evidence.putObject("queueWait"), s.recent().queueWait());
    distribution(evidence.putObject("runTime"), s.recent().runTime());
    evidence.put("oldestQueuedMs", s.oldestQueuedNanos() / 1e6);
    evidence.put("running", s.running());
    evidence.put("concurrency", s.concurrency());
    evidence.put("workers", s.workers());
    evidence.put("queued", s.queued());
    evidence.put("queueCapacity", s.queueCapacity());
    ObjectNode counts = evidence.putObject("counts");
    counts.put("submitted", s.submitted());
    counts.put("started", s.started());
    counts.put("rejected", s.rejected());
    for (TaskOutcome o : TaskOutcome.values()) {
      counts.put(o.tag(), s.count(o));
    }
    ObjectNode figures = root.putObject("figures");
    alert.figures().forEach(figures::put);
    root.put("diagnostic", alert.diagnostic());
    root.put("workerStacks", alert.workerStacks());
    return root;
  }

  private static void distribution(ObjectNode node, Distribution d) {
    node.put("recentCount", d.count());
    node.put("recentMeanMs", d.meanMillis());
    node.put("recentP99Ms", d.p99Millis());
  }

  /**
   * Slack's incoming-webhook shape: {@code text} (the headline, what a notification shows) and
   * {@code blocks}: the headline, the evidence, the diagnostic and the workers' stacks, each a
   * mrkdwn section within Slack's length limit.
   */
  static ObjectNode slack(Alert alert) {
    ObjectNode root = JSON.createObjectNode();
    root.put("text", escape(alert.headline()));
    ArrayNode blocks = root.putArray("blocks");
    section(blocks, "*" + escape(alert.headline()) + "*");
    StringBuilder evidence = new StringBuilder();
    for (String line : alert.evidence()) {
      evidence.append("• ").append(escape(line)).append('\n');
    }
    section(blocks, evidence.toString().strip());
    if (!alert.diagnostic().isEmpty()) {
      section(blocks, code("diagnostic", alert.diagnostic()));
    }
    if (!alert.workerStacks().isEmpty()) {
      section(blocks, code("worker stacks", alert.workerStacks()));
    }
    return root;
  }

  private static void section(ArrayNode blocks, String mrkdwn) {
    ObjectNode block = blocks.addObject();
    block.put("type", "section");
    ObjectNode text = block.putObject("text");
    text.put("type", "mrkdwn");
    text.put("text", mrkdwn);
  }

  /** A titled code block cut to fit one section, saying how much was cut. */
  static String code(String title, String body) {
    String head = "*" + title + "*\n```";
    String tail = "```";
    String text = escape(body.strip());
    int room = SLACK_SECTION_LIMIT - head.length() - tail.length() - 40;
    if (text.length() > room) {
      int cut = text.length() - room;
      text = text.substring(0, room) + "\n… (" + cut + " more characters)";
    }
    return head + text + tail;
  }

  /** Slack's mrkdwn gives {@code & < >} meanings; these three are to be escaped. */
  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
