import Contracts
import Crypto
import Foundation
import Jev
import Runtime

/// Attaches Jev's verdict to investables (docs/COMPATIBILITY.md#verdict): one batched `systemone` call within 4 s, fail
/// open (the key is absent, never null), a 15-minute memo per detection state (unusable answers too) and a 60 s
/// back-off.
struct VerdictAttacher: Sendable {
    static let budget: Duration = .seconds(4)
    static let maxQuestions = 20

    let jev: JevClient
    let gate: JevGate
    let memo = TTLCache<String, VerdictMemo>(ttl: .seconds(15 * 60))

    /// A memoized answer: a verdict, or a known-unusable one.
    enum VerdictMemo: Sendable {
        case verdict(InvestableVerdict)
        case unusable
    }

    /// The state Jev sees for one detection (`d<i>`).
    struct DetectionState: Codable, Sendable, Hashable {
        struct ComparableState: Codable, Sendable, Hashable {
            let ticker: String
            let name: String
            let score: Double
        }
        struct ETFState: Codable, Sendable, Hashable {
            let ticker: String
            let weight: Double
        }
        let brand: String
        let parent: String?
        let sector: String?
        let is_public: Bool
        let ticker: String?
        let ticker_parent: String?
        let comparables: [ComparableState]
        let etfs: [ETFState]
        let identification_confidence: String
        let rarity: String?
        let on_watchlist: Bool?

        init(_ investable: Investable, onWatchlist: Bool?) {
            brand = investable.brand.name
            parent = investable.brand.parent
            sector = investable.brand.sector
            is_public = investable.brand.isPublic
            ticker = investable.brand.ticker?.symbol
            ticker_parent = investable.brand.ticker?.parent
            comparables = investable.comparables.prefix(3).map {
                ComparableState(ticker: $0.ticker, name: $0.name, score: ($0.score * 100).rounded() / 100)
            }
            etfs = investable.etfs.prefix(3).map {
                ETFState(ticker: $0.ticker, weight: ($0.weight * 1000).rounded() / 1000)
            }
            identification_confidence = investable.confidence.rawValue
            rarity = investable.rarity?.rawValue
            on_watchlist = onWatchlist
        }

        /// First 20 hex of SHA-1 over the JSON state.
        var memoKey: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let bytes = (try? encoder.encode(self)).map(Array.init) ?? []
            return String(Digest.hex(Digest.sha1(bytes)).prefix(20))
        }
    }

    /// The ticker whose watchlist membership the verdict reports: the brand's own, else its first comparable's.
    static func watchTicker(_ investable: Investable) -> String? {
        (investable.brand.ticker?.symbol ?? investable.comparables.first?.ticker)?.uppercased()
    }

    /// `onWatchlist`: the caller's default-list tickers when known (signed in and read in time), else nil.
    func attach(_ investables: [Investable], onWatchlist: Set<String>? = nil) async -> [Investable] {
        guard !investables.isEmpty, gate.allowsCalls else { return investables }
        let flags = investables.map { investable in
            onWatchlist.map { list in Self.watchTicker(investable).map(list.contains) ?? false }
        }
        let states = zip(investables, flags).map { DetectionState($0, onWatchlist: $1) }
        let keys = states.map(\.memoKey)
        // Uncached states, each asked once however many investables share it.
        var asked: [String: Int] = [:]
        var questionStates: [String: DetectionState] = [:]
        for (key, state) in zip(keys, states) where memo[key] == nil && asked[key] == nil {
            guard asked.count < Self.maxQuestions else { break }
            let index = asked.count
            asked[key] = index
            questionStates["d\(index)"] = state
        }
        if !asked.isEmpty { await ask(questionStates, keys: asked) }
        return zip(zip(investables, keys), flags).map { pair, flag in
            var out = pair.0
            if case .verdict(var verdict)? = memo[pair.1] {
                verdict.watchlisted = flag
                out.verdict = verdict
            }
            return out
        }
    }

    private struct State: Encodable, Sendable {
        let detections: [String: DetectionState]
    }

    private func ask(_ detections: [String: DetectionState], keys: [String: Int]) async {
        var questions: [String: JevQuestion] = [:]
        for id in detections.keys {
            questions["exposure_\(id)"] = .choice(
                instructions:
                    "How does buying a public security give exposure to this brand: direct (it is the listed company), parent (its listed parent), proxy (a comparable or ETF), or none?",
                labels: ["direct", "parent", "proxy", "none"])
            questions["look_\(id)"] = .noul(
                instructions: "Is this worth a closer look for a retail investor who does not already watch it?")
        }
        let result = await jev.ask(
            state: State(detections: detections), questions: questions, overallTimeout: Self.budget)
        gate.record(result)
        guard case .success(let answers) = result else { return }
        for (key, index) in keys {
            memo.set(key, Self.verdict(answers, id: "d\(index)"))
        }
    }

    static func verdict(_ answers: JevAnswers, id: String) -> VerdictMemo {
        guard let choice = answers.choice("exposure_\(id)"), choice.confidence >= JevGate.confidenceThreshold,
            let exposure = InvestableVerdict.Exposure(rawValue: choice.choice)
        else { return .unusable }
        let probability = clamp3(choice.probabilities[choice.choice] ?? choice.confidence)
        let look = answers.noul("look_\(id)").map(clamp3) ?? 0.5
        return .verdict(InvestableVerdict(exposure: exposure, probability: probability, worthALook: look))
    }

    static func clamp3(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (min(1, max(0, value)) * 1000).rounded() / 1000
    }
}
