import PushCore
import Runtime

/// The push metrics. Labels are bounded (fixed outcomes), never user, token or request ids.
enum Metrics {
    static func notifications(_ outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "push_notifications_total", help: "Notifications by outcome (handed_off, failed)",
            labels: ["outcome": outcome])
    }

    static let blocked = MetricsRegistry.shared.counter(
        "push_notifications_blocked_total",
        help:
            "Notifications not sent because the production gate is closed (EXPO_PUSH_SECURITY_ENABLED/EXPO_ACCESS_TOKEN)"
    )

    static let dispatchEnabled = MetricsRegistry.shared.gauge(
        "push_expo_dispatch_enabled",
        help: "1 when notifications may be sent to Expo, 0 when the production gate is closed")

    static let lockHold = MetricsRegistry.shared.histogram(
        "push_advisory_lock_hold_seconds", help: "Time a handoff held its session-level advisory locks")

    /// Time per step of a batch: select, claim, pace, lock (waiting for the session locks), validate, expo,
    /// finalize, unlock.
    static func phase(_ name: String) -> Histogram {
        MetricsRegistry.shared.histogram(
            "push_batch_phase_seconds", help: "Time per step of a delivery batch", labels: ["phase": name])
    }

    static let handoffsInFlight = MetricsRegistry.shared.gauge(
        "push_handoffs_in_flight", help: "Batches holding a handoff permit in this process")

    static let requests = MetricsRegistry.shared.counter(
        "push_requests_total", help: "Notification requests processed")

    static let requestDuration = MetricsRegistry.shared.histogram(
        "push_request_duration_seconds", help: "Time to deliver one notification request")

    static let batchErrors = MetricsRegistry.shared.counter(
        "push_batch_errors_total", help: "Batches that hit a database error (retried, or leases left to expire)")

    static func pruned(_ source: String) -> Counter {
        MetricsRegistry.shared.counter(
            "push_tokens_pruned_total",
            help: "Installations deleted after DeviceNotRegistered, by source (ticket, receipt)",
            labels: ["source": source])
    }

    static func receipts(_ outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "push_receipts_total", help: "Expo receipts by outcome (ok, error, device_not_registered, expired)",
            labels: ["outcome": outcome])
    }

    static let expiredLeases = MetricsRegistry.shared.counter(
        "push_expired_leases_swept_total", help: "Expired delivery claims removed by maintenance")

    /// Creates the series the alert rules watch at zero, so they exist before the first failure.
    static func registerAlertingSeries() {
        _ = batchErrors
        for outcome in ["handed_off", "failed"] { _ = notifications(outcome) }
        for reason in PushRequestRejection.allCases { _ = requestsRejected(reason.rawValue) }
    }

    static func requestsRejected(_ reason: String) -> Counter {
        MetricsRegistry.shared.counter(
            "push_requests_rejected_total", help: "Notification requests that could not be decoded (dead-lettered)",
            labels: ["reason": reason])
    }
}
