import Contracts
import Crypto
import Finance
import Foundation
import Jev
import Redis
import Runtime

/// Headline materiality (docs/COMPATIBILITY.md#materiality): one batched Jev call per page (a request per chunk of ≤ 50
/// headlines), a choice over `noise | minor | material` per headline. Fail open: no key, an error, a timeout, a
/// confidence below 0.55 or the 60 s failure back-off leave a headline unscored (its tag absent, never null).
///
/// Answers — unusable ones too — are memoized 15 minutes per `<id>::<first 16 hex of sha1(ticker|title|source)>`
/// in Redis (shared by replicas) behind a small in-process memo; concurrent pages asking the same headlines share
/// one call, and a short cross-replica lock lets another replica's call finish first.
public struct HeadlineMateriality: Sendable {
    static let memoTTL: Duration = .seconds(15 * 60)
    static let chunkSize = 50
    public static let labels = MaterialityLevel.allCases.map(\.rawValue)

    /// One headline to score. `id` is the URL for `/v1/news`, `<TICKER>::<url>` for watchlist headlines.
    public struct Headline: Sendable, Equatable {
        public var id: String
        public var ticker: String?
        public var title: String
        public var source: String?
        public var publishedAt: String?

        public init(id: String, ticker: String?, title: String, source: String?, publishedAt: String?) {
            self.id = id
            self.ticker = ticker
            self.title = title
            self.source = source
            self.publishedAt = publishedAt
        }

        /// `<id>::<first 16 hex of sha1(ticker|title|source)>`.
        public var memoKey: String {
            let content = "\(ticker ?? "")|\(title)|\(source ?? "")"
            return id + "::" + String(Digest.hex(Digest.sha1(Array(content.utf8))).prefix(16))
        }
    }

    /// A memoized answer: a tag, or none (an unusable answer is remembered as such).
    struct Memo: Codable, Sendable {
        var tag: JevMateriality?
    }

    let jev: JevClient
    let gate: JevGate
    private let shared: RedisSharedCache<Memo>
    private let local = TTLCache<String, Memo>(ttl: HeadlineMateriality.memoTTL, capacity: 20_000)
    private let flights = SingleFlight<String, [String: Memo]>()
    private let logger: Logger

    public init(jev: JevClient, gate: JevGate = JevGate(), redis: RedisClient?, logger: Logger) {
        self.jev = jev
        self.gate = gate
        self.logger = logger
        shared = RedisSharedCache(
            redis: redis, prefix: "mapvest:materiality:v1:", lockTTL: .seconds(5), waitForOther: .milliseconds(800),
            logger: logger)
    }

    /// Tags aligned with `headlines` (nil = unscored). Never waits on Jev longer than `timeout`.
    public func score(_ headlines: [Headline], timeout: Duration) async -> [JevMateriality?] {
        guard !headlines.isEmpty else { return [] }
        let started = ContinuousClock.now
        let keys = headlines.map(\.memoKey)
        var known: [String: Memo] = [:]
        for key in Set(keys) { if let memo = local[key] { known[key] = memo } }
        var missing = Set(keys).subtracting(known.keys)
        if !missing.isEmpty {
            for (key, memo) in await shared.get(Array(missing)) {
                known[key] = memo
                local.set(key, memo)
                missing.remove(key)
            }
        }
        if !missing.isEmpty, gate.allowsCalls {
            var ask: [Headline] = []
            var asked = Set<String>()
            for headline in headlines
            where missing.contains(headline.memoKey) && asked.insert(headline.memoKey).inserted {
                ask.append(headline)
            }
            let left = timeout - (ContinuousClock.now - started)
            if left > .milliseconds(50) {
                let flightKey = Digest.hex(Digest.sha1(Array(asked.sorted().joined(separator: "\n").utf8)))
                let batch = ask
                let answered = await flights.run(flightKey) { [self] in
                    await self.ask(batch, flightKey: flightKey, timeout: left)
                }
                known.merge(answered) { _, new in new }
            }
        }
        return keys.map { known[$0]?.tag }
    }

    /// Asks Jev about `headlines` (chunks in parallel) and memoizes every answer; a failed batch memoizes nothing
    /// and starts the back-off.
    private func ask(_ headlines: [Headline], flightKey: String, timeout: Duration) async -> [String: Memo] {
        let started = ContinuousClock.now
        var out: [String: Memo] = [:]
        let owner = await shared.claim(flightKey)
        if !owner {
            // Another replica is asking about the same page: give its answers a moment to land.
            let wait = min(shared.waitForOther, timeout / 2)
            let deadline = started + wait
            while ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
                let found = await shared.get(headlines.map(\.memoKey))
                if found.count == Set(headlines.map(\.memoKey)).count { return found }
            }
        }
        let left = timeout - (ContinuousClock.now - started)
        guard left > .milliseconds(50) else {
            if owner { await shared.release(flightKey) }
            return out
        }
        let chunks = stride(from: 0, to: headlines.count, by: Self.chunkSize).map {
            Array(headlines[$0..<min($0 + Self.chunkSize, headlines.count)])
        }
        let results = await withTaskGroup(of: [String: Memo]?.self) { group in
            for chunk in chunks { group.addTask { await self.askChunk(chunk, timeout: left) } }
            var all: [[String: Memo]?] = []
            for await result in group { all.append(result) }
            return all
        }
        for result in results {
            guard let result else { continue }
            for (key, memo) in result {
                out[key] = memo
                local.set(key, memo)
                await shared.put(key, memo, ttl: Self.memoTTL)
            }
        }
        if owner { await shared.release(flightKey) }
        return out
    }

    private struct State: Encodable, Sendable {
        struct Item: Encodable, Sendable {
            let id: String
            let ticker: String?
            let title: String
            let source: String?
            let publishedAt: String?
        }
        let tickers: [String]
        let headlines: [Item]
    }

    private func askChunk(_ chunk: [Headline], timeout: Duration) async -> [String: Memo]? {
        var questions: [String: JevQuestion] = [:]
        var items: [State.Item] = []
        for (i, headline) in chunk.enumerated() {
            let id = "h\(i)"
            questions[id] = .choice(
                instructions:
                    "How material is this headline for the company's stock over the next few weeks? noise: no bearing; minor: small or already known; material: could move the price or the thesis.",
                labels: Self.labels)
            items.append(
                State.Item(
                    id: id, ticker: headline.ticker, title: String(headline.title.prefix(300)), source: headline.source,
                    publishedAt: headline.publishedAt))
        }
        var tickers: [String] = []
        for ticker in chunk.compactMap(\.ticker) where !tickers.contains(ticker) { tickers.append(ticker) }
        let result = await jev.ask(
            state: State(tickers: tickers, headlines: items), questions: questions, overallTimeout: timeout)
        gate.record(result)
        guard case .success(let answers) = result else { return nil }
        var out: [String: Memo] = [:]
        for (i, headline) in chunk.enumerated() {
            out[headline.memoKey] = Memo(tag: Self.materiality(answers.choice("h\(i)")))
        }
        return out
    }

    /// A usable answer as a tag (`MaterialityScoring.tag`, confidence ≥ 0.55); nil without an answer.
    public static func materiality(_ answer: JevChoiceAnswer?) -> JevMateriality? {
        guard let answer else { return nil }
        return MaterialityScoring.tag(
            choice: answer.choice, probabilities: answer.probabilities, confidence: answer.confidence,
            minimumConfidence: JevGate.confidenceThreshold)
    }
}
