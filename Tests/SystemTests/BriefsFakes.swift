import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Runtime
import Synchronization
import TestSupport
import UpstreamFakes

/// Loopback upstreams and helpers for the Briefs system tests: Massive (snapshots and news), OpenRouter (the
/// daily brief's JSON answer), Jev (materiality choices and the pre-filter's noul), and a push-request collector.
enum BriefsFakes {
    /// Switches a test flips while processes run.
    final class Knobs: Sendable {
        let modelFails = Mutex(false)
        let modelLatency = Mutex(Duration.zero)
        /// The pre-filter's answer: `nil` = no noul answer, else p(enough new signal).
        let prefilterNoul = Mutex<Double?>(0.9)
        let jevDown = Mutex(false)
        init() {}
    }

    /// Massive: every symbol quotes at 100 (previous close 99, +1.01 %), except those starting with `MV` (+7 %) and
    /// `NOPE…` (no quote); news per symbol: four headlines an hour apart, the first `…material…`.
    static func massive() throws -> FakeUpstream {
        try FakeUpstream { request in
            if request.path.hasPrefix("/v2/snapshot/") {
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                if symbol.hasPrefix("NOPE") { return .json(404, raw: Array(#"{"status":"NOT_FOUND"}"#.utf8)) }
                let previous = symbol.hasPrefix("MV") ? 93.46 : 99.0
                let body = """
                    {"status":"OK","ticker":{"ticker":"\(symbol)","name":"\(symbol) Inc.","day":{"c":100},\
                    "prevDay":{"c":\(previous)},"lastTrade":{"p":100,"t":\(Int64(Date().timeIntervalSince1970 * 1000))}}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
            if request.path == "/v2/reference/news" {
                let symbol = request.query["ticker"] ?? "X"
                let base = Date().timeIntervalSince1970 - 600
                let items = (0..<4).map { i in
                    let title = i == 0 ? "\(symbol) material contract win" : "\(symbol) headline \(i)"
                    return """
                        {"title":"\(title)","article_url":"https://news.example/\(symbol)/\(i)",\
                        "publisher":{"name":"Wire"},"published_utc":"\(Timestamp.iso8601(Date(timeIntervalSince1970: base - Double(i) * 3600)))"}
                        """
                }
                return .json(200, raw: Array("{\"status\":\"OK\",\"results\":[\(items.joined(separator: ","))]}".utf8))
            }
            return .error(404, "not faked")
        }
    }

    /// OpenRouter: `{headline, body}` with markdown bold, after `modelLatency`; 500 while `modelFails`.
    static func openRouter(_ knobs: Knobs) throws -> FakeUpstream {
        try FakeUpstream { _ in
            let latency = knobs.modelLatency.withLock { $0 }
            if latency > .zero { try? await Task.sleep(for: latency) }
            if knobs.modelFails.withLock({ $0 }) { return .error(500, "upstream down") }
            let content =
                #"{"headline":"**Tape drifts higher**","body":"**$AAPL** edged up while the rest of the list held steady."}"#
            let body = try? JSONSerialization.data(withJSONObject: [
                "choices": [["message": ["role": "assistant", "content": content]]],
                "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
            ])
            return .json(200, raw: Array(body ?? Data()))
        }
    }

    /// Jev: materiality choices (`material` for titles containing "material", else `noise`), the pre-filter's noul,
    /// and verdict questions (`exposure_*` choice `direct`, `look_*` noul 0.8); 503 while `jevDown`.
    static func jev(_ knobs: Knobs) throws -> FakeUpstream {
        try FakeUpstream { request in
            if knobs.jevDown.withLock({ $0 }) { return .error(503, "down") }
            let json = SystemClient.jsonObject(request.body)
            let questions = (json["questions"] as? [String: Any]) ?? [:]
            let state = json["state"] as? [String: Any]
            let headlines = (state?["headlines"] as? [[String: Any]]) ?? []
            var answers: [String: Any] = [:]
            for (id, question) in questions {
                let type = (question as? [String: Any])?["type"] as? String
                if id.hasPrefix("exposure_") {
                    answers[id] = [
                        "type": "choice", "choice": "direct", "probabilities": ["direct": 0.9], "confidence": 0.9,
                    ]
                } else if type == "noul" {
                    let p = id.hasPrefix("look_") ? 0.8 : knobs.prefilterNoul.withLock { $0 }
                    if let p { answers[id] = ["type": "noul", "noul": p] }
                } else {
                    let title = headlines.first { $0["id"] as? String == id }?["title"] as? String ?? ""
                    let level = title.contains("material") ? "material" : "noise"
                    answers[id] = ["type": "choice", "choice": level, "probabilities": [level: 0.9], "confidence": 0.9]
                }
            }
            let body = try? JSONSerialization.data(withJSONObject: ["model": "jev-latest", "answers": answers])
            return .json(200, raw: Array(body ?? Data()))
        }
    }

    /// The three fakes a Briefs test needs and the environment pointing processes at them.
    static func upstreams(_ knobs: Knobs) throws -> (
        massive: FakeUpstream, openRouter: FakeUpstream, jev: FakeUpstream, env: [String: String]
    ) {
        let (massive, openRouter, jev) = (try massive(), try openRouter(knobs), try jev(knobs))
        return (massive, openRouter, jev, environment(massive: massive, openRouter: openRouter, jev: jev))
    }

    /// The upstream environment for Briefs (and Identify) processes.
    static func environment(massive: FakeUpstream, openRouter: FakeUpstream, jev: FakeUpstream) -> [String: String] {
        [
            "MARKET_DATA_PRIMARY": "massive", "MASSIVE_API_KEY": "test-massive", "MASSIVE_BASE_URL": massive.baseURL,
            "OPENROUTER_API_KEY": "test-openrouter", "OPENROUTER_BASE_URL": openRouter.baseURL,
            "JEV_API_KEY": "test-jev", "JEV_BASE_URL": jev.baseURL, "EXA_API_KEY": "",
        ]
    }

    /// Push requests on `mapvest.push.requests.v1` for a set of users, collected by a consumer of its own group.
    final class PushCollector: Sendable {
        private final class Recorded: Sendable { let list = Mutex<[PushRequest]>([]) }
        private let requests = Recorded()
        private let consumer: KafkaGroupConsumer
        private let task: Task<Void, any Error>

        init(users: @escaping @Sendable (String) -> Bool) throws {
            let consumer = try KafkaGroupConsumer.make(
                configuration: KafkaConfiguration.fromEnvironment(Environment()),
                groupId: "test-push-\(UInt32.random(in: 0...UInt32.max))", topics: [Topics.pushRequests],
                logger: Logger(label: "push-collector", level: .error))
            let requests = self.requests
            consumer.setHandler(maxInFlight: 16) { message in
                guard let request = try? JSONDecoder().decode(PushRequest.self, from: Data(message.value)),
                    request.userIds.contains(where: users)
                else { return }
                requests.list.withLock { $0.append(request) }
            }
            self.consumer = consumer
            task = Task { try await consumer.run() }
        }

        var all: [PushRequest] { requests.list.withLock { $0 } }

        func stop() async {
            await consumer.shutdown()
            _ = try? await task.value
        }
    }

    /// Signs a fresh user in: the bearer header and the user id.
    static func signIn(_ gateway: GatewayProcess) async throws -> (auth: [(String, String)], userId: String) {
        let session = try await SystemClient.signIn(gateway)
        return ([("Authorization", "Bearer \(session.token)")], session.userId)
    }

    /// Waits until Briefs answers through `gateway` (a fresh consumer group takes a moment to settle).
    static func waitForBriefs(_ gateway: GatewayProcess, auth: [(String, String)]) async throws {
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            if try await SystemClient.send(gateway, "GET", "/v1/watchlist/lists", headers: auth).status == 200 {
                return
            }
        }
        throw Failure("Briefs did not answer through the gateway within 40 s")
    }
}
