import Runtime

/// Metrics of request/reply and command running. Labels are bounded: topic names (per-instance reply topics
/// collapsed), service names, fixed reasons and outcomes.
enum MessagingMetrics {
    static func repliesDropped(_ reason: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_replies_dropped_total", help: "Replies nobody waited for", labels: ["reason": reason])
    }

    static func requests(service: String, outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_requests_total", help: "Requests sent by the gateway, by outcome",
            labels: ["service": service, "outcome": outcome])
    }

    static func requestDuration(service: String) -> Histogram {
        MetricsRegistry.shared.histogram(
            "messaging_request_duration_seconds", help: "Time from sending a command to its reply",
            labels: ["service": service])
    }

    static func admissionLimit(service: String) -> Gauge {
        MetricsRegistry.shared.gauge(
            "messaging_admission_limit", help: "Adaptive cap on requests in flight to a service (AdmissionLimit)",
            labels: ["service": service])
    }

    static func hedges(service: String, outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_hedges_total",
            help:
                "Hedge copies of idempotent reads, by outcome (sent, refused, over_budget)",
            labels: ["service": service, "outcome": outcome])
    }

    static let requestsWaiting = MetricsRegistry.shared.gauge(
        "messaging_requests_waiting", help: "Requests waiting for a reply")

    static func commandsExpired(topic: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_commands_expired_total", help: "Commands dropped because their budget was spent",
            labels: ["topic": topic])
    }

    static func commands(topic: String, outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_commands_total", help: "Commands handled, by outcome",
            labels: ["topic": topic, "outcome": outcome])
    }

    static func commandDuration(topic: String) -> Histogram {
        MetricsRegistry.shared.histogram(
            "messaging_command_duration_seconds", help: "Command handling time including the reply",
            labels: ["topic": topic])
    }

    /// Creates a consumed command topic's alerting series at zero, so alerts and `rate()` see them before the
    /// first dead letter or expired command.
    static func registerCommandTopic(_ topic: String) {
        _ = deadLetters(topic: label(topic))
        _ = commandsExpired(topic: label(topic))
    }

    private static func label(_ topic: String) -> String { CommandProcessor.label(topic) }

    static func deadLetters(topic: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_dead_letters_total", help: "Commands sent to the dead-letter topic", labels: ["topic": topic])
    }

    static let replyFailures = MetricsRegistry.shared.counter(
        "messaging_reply_failures_total", help: "Replies or dead letters that could not be delivered")

    static func publishFailures(topic: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_publish_failures_total", help: "Events that could not be published", labels: ["topic": topic])
    }

    static func afterReplyRetries(topic: String) -> Counter {
        MetricsRegistry.shared.counter(
            "messaging_after_reply_retries_total", help: "Failed attempts of after-reply work (retried; offset held)",
            labels: ["topic": topic])
    }
}
