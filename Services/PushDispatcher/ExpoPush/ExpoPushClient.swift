import Contracts
import FoundationEssentials
import HTTPClient
import PushCore
import Runtime

/// Expo's push API (docs/COMPATIBILITY.md#expo): `POST <base>/--/api/v2/push/send` with at most 100 messages, tickets
/// matched by index; `POST <base>/--/api/v2/push/getReceipts` with at most 1000 ids. HTTP 429, 5xx and network errors
/// are retried with exponential backoff and jitter (`retryBase × 2^(n−1)`, ×0.5…1.5), at most `maxAttempts` attempts;
/// any other 4xx fails every message. Never throws; never logs tokens, ticket ids, titles or bodies.
///
/// `Accept-Encoding` is not sent: the shared HTTP client does not inflate gzip bodies, and Expo answers identity.
public struct ExpoPushClient: Sendable {
    /// Expo's cap per send request.
    public static let maxMessagesPerRequest = 100
    /// Expo's cap per receipts request.
    public static let maxReceiptIds = 1000

    public struct Configuration: Sendable {
        /// `EXPO_BASE_URL` (https://exp.host), without a trailing slash.
        public var baseURL: String
        /// `EXPO_ACCESS_TOKEN`: sent as a bearer when set.
        public var accessToken: String?
        /// Per attempt (15 s).
        public var timeout: Duration
        public var maxAttempts: Int
        /// First retry delay (200 ms), doubled per attempt.
        public var retryBase: Duration

        public init(
            baseURL: String = "https://exp.host", accessToken: String? = nil, timeout: Duration = .seconds(15),
            maxAttempts: Int = 3, retryBase: Duration = .milliseconds(200)
        ) {
            var base = baseURL
            while base.hasSuffix("/") { base.removeLast() }
            self.baseURL = base
            self.accessToken = accessToken.flatMap { $0.isEmpty ? nil : $0 }
            self.timeout = timeout
            self.maxAttempts = max(1, maxAttempts)
            self.retryBase = retryBase
        }
    }

    public let configuration: Configuration
    private let http: HTTPClient
    private let logger: Logger

    private static func requests(_ outcome: String) -> Counter {
        MetricsRegistry.shared.counter(
            "push_expo_requests_total", help: "Requests to Expo's push API by endpoint and outcome",
            labels: ["outcome": outcome])
    }

    public init(configuration: Configuration, http: HTTPClient, logger: Logger) {
        self.configuration = configuration
        self.http = http
        self.logger = logger.with([LogKeys.component: "expo"])
    }

    /// Sends up to 100 messages; returns one ticket per message, in order.
    public func send(_ messages: [ExpoMessage]) async -> [ExpoTicket] {
        guard !messages.isEmpty else { return [] }
        precondition(messages.count <= Self.maxMessagesPerRequest, "at most 100 messages per Expo request")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let body = try? encoder.encode(messages) else {
            return Array(repeating: .failed(reason: .rejected), count: messages.count)
        }
        guard let response = await post("/--/api/v2/push/send", body: Array(body), endpoint: "send") else {
            return Array(repeating: .failed(reason: .unavailable), count: messages.count)
        }
        guard (200..<300).contains(response.status) else {
            logger.warning(
                "expo rejected a send",
                [LogKeys.httpStatus: .int(response.status), LogKeys.pushMessages: .int(messages.count)])
            return Array(repeating: .failed(reason: .rejected), count: messages.count)
        }
        guard let decoded = try? JSONDecoder().decode(SendResponse.self, from: Data(response.body)),
            let tickets = decoded.data
        else {
            logger.warning("expo send answer unreadable", [LogKeys.pushMessages: .int(messages.count)])
            return Array(repeating: .failed(reason: .unavailable), count: messages.count)
        }
        return messages.indices.map { index in
            guard index < tickets.count else { return .failed(reason: .rejected) }
            return Self.ticket(tickets[index])
        }
    }

    /// Receipts for up to 1000 ticket ids; ids Expo does not know yet are absent. Nil when the call failed.
    public func receipts(ids: [String]) async -> [String: ExpoReceipt]? {
        guard !ids.isEmpty else { return [:] }
        precondition(ids.count <= Self.maxReceiptIds, "at most 1000 ids per receipts request")
        guard let body = try? JSONEncoder().encode(["ids": ids]),
            let response = await post("/--/api/v2/push/getReceipts", body: Array(body), endpoint: "receipts"),
            (200..<300).contains(response.status),
            let decoded = try? JSONDecoder().decode(ReceiptsResponse.self, from: Data(response.body))
        else { return nil }
        var out: [String: ExpoReceipt] = [:]
        for (id, receipt) in decoded.data ?? [:] {
            if receipt.status == "ok" {
                out[id] = .ok
            } else if receipt.details?.error == "DeviceNotRegistered" {
                out[id] = .deviceNotRegistered
            } else {
                out[id] = .error
            }
        }
        return out
    }

    static func ticket(_ raw: RawTicket) -> ExpoTicket {
        if raw.status == "ok" { return .ok(id: raw.id) }
        if raw.details?.error == "DeviceNotRegistered" { return .deviceNotRegistered }
        return .failed(reason: .rejected)
    }

    /// POSTs with retries; nil when every attempt failed with 429/5xx or a network error.
    private func post(_ path: String, body: [UInt8], endpoint: String) async -> HTTPClientResponse? {
        var headers = [("Accept", "application/json"), ("Content-Type", "application/json")]
        if let token = configuration.accessToken { headers.append(("Authorization", "Bearer \(token)")) }
        let request = HTTPClientRequest(
            method: "POST", url: configuration.baseURL + path, headers: headers, body: body,
            timeout: configuration.timeout, maxResponseBytes: 8 << 20)
        for attempt in 1...configuration.maxAttempts {
            if Task.isCancelled { return nil }
            var retriable: Bool
            do {
                let response = try await http.execute(request)
                Self.requests("\(endpoint)_\(response.status / 100)xx").increment()
                retriable = response.status == 429 || response.status >= 500
                if !retriable { return response }
                logger.warning(
                    "expo answered a retriable status",
                    [
                        LogKeys.expoEndpoint: .string(endpoint), LogKeys.httpStatus: .int(response.status),
                        LogKeys.attempt: .int(attempt),
                    ])
            } catch {
                Self.requests("\(endpoint)_network").increment()
                retriable = error.kind != .cancelled
                logger.warning(
                    "expo request failed",
                    [
                        LogKeys.expoEndpoint: .string(endpoint), LogKeys.error: .string(error.description),
                        LogKeys.attempt: .int(attempt),
                    ])
            }
            guard retriable, attempt < configuration.maxAttempts else { return nil }
            try? await Task.sleep(for: Self.backoff(base: configuration.retryBase, attempt: attempt))
        }
        return nil
    }

    /// `base × 2^(attempt−1)` with ±50 % jitter.
    public static func backoff(base: Duration, attempt: Int) -> Duration {
        let factor = Double(1 << min(max(0, attempt - 1), 10)) * Double.random(in: 0.5...1.5)
        return .milliseconds(Int64(base.inMilliseconds * factor))
    }

    struct RawTicket: Decodable {
        var status: String?
        var id: String?
        var details: Details?
    }

    struct Details: Decodable {
        var error: String?
    }

    private struct SendResponse: Decodable {
        var data: [RawTicket]?
    }

    private struct ReceiptsResponse: Decodable {
        var data: [String: RawTicket]?
    }
}
