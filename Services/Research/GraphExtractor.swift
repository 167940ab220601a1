import Contracts
import Exa
import Foundation
import HTTPClient
import OpenRouter
import ResearchCore
import Runtime

/// Finds a company's value chain: SEC citations from Underlying (`GET /api/sec/<T>`, 5 s) and four Exa searches
/// (5 s) as evidence, then OpenRouter's judge chain (JSON, temperature 0.1, 20 s a model, within the deadline);
/// `ValueChain.edges` keeps what the evidence supports. No evidence, or every model failing, finds nothing.
struct GraphExtractor: Sendable {
    /// Underlying's origin (nil when `UNDERLYING_URL=off`).
    let underlyingURL: String?
    let http: HTTPClient
    let exa: ExaClient
    let openRouter: OpenRouterClient

    enum Outcome: Sendable {
        case found([CompanyEdge])
        /// Nothing the evidence supports (or no evidence at all).
        case nothing
        /// Neither OpenRouter nor any evidence source is configured.
        case unavailable(String)
    }

    func extract(_ ticker: String, deadline: ContinuousClock.Instant) async -> Outcome {
        guard openRouter.isConfigured else { return .unavailable("graph extraction needs OPENROUTER_API_KEY") }
        async let filings = filings(ticker)
        async let web = web(ticker)
        let evidence = await filings + web
        guard !evidence.isEmpty else { return .nothing }
        let outcome = await openRouter.chatJSON(
            models: ValueChain.models, system: ValueChain.system,
            user: .text(ValueChain.prompt(ticker, evidence: evidence)), temperature: 0.1,
            timeoutPerModel: .seconds(20), deadline: deadline, feature: "value_chain")
        guard case .answered(let result) = outcome else { return .nothing }
        let now = Timestamp.iso8601(Date())
        let edges = ValueChain.edges(
            result.value, subject: ticker, evidence: evidence, createdAt: now, asOf: String(now.prefix(10)),
            id: { _ in "edge_" + UUID().uuidString.lowercased() })
        return edges.isEmpty ? .nothing : .found(edges)
    }

    /// `Citations[].{Form, Label, URL}` → `"<Form> <Label>"`, at most 6.
    private func filings(_ ticker: String) async -> [ValueChain.Evidence] {
        guard let underlyingURL else { return [] }
        var request = HTTPClientRequest(
            method: "GET", url: underlyingURL + "/api/sec/" + ticker, headers: [("Accept", "application/json")])
        request.timeout = .seconds(5)
        request.maxResponseBytes = 4 << 20
        guard let response = try? await http.execute(request), response.status == 200,
            case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)),
            case .array(let citations)? = body["Citations"]
        else { return [] }
        let items = citations.compactMap { citation -> ValueChain.Evidence? in
            guard case .object(let c) = citation, case .string(let url)? = c["URL"], url.hasPrefix("http") else {
                return nil
            }
            let form = if case .string(let f)? = c["Form"] { f } else { "" }
            let label = if case .string(let l)? = c["Label"] { l } else { "" }
            return ValueChain.Evidence(url: url, label: "\(form) \(label)".trimmed, isFiling: true)
        }
        return Array(items.prefix(6))
    }

    /// The four Exa questions in parallel, deduped by URL, at most 12.
    private func web(_ ticker: String) async -> [ValueChain.Evidence] {
        guard exa.isConfigured else { return [] }
        let answers = await withTaskGroup(of: (Int, [ExaHit]).self) { group in
            for (index, query) in ValueChain.queries(ticker).enumerated() {
                group.addTask {
                    (
                        index,
                        await exa.search(query: query, numResults: 5, highlightSentences: 1, timeout: .seconds(5)).hits
                    )
                }
            }
            return await group.reduce(into: [Int: [ExaHit]]()) { $0[$1.0] = $1.1 }
        }
        var seen: Set<String> = []
        let hits = (0..<4).flatMap { answers[$0] ?? [] }.filter { seen.insert(ValueChain.looseURL($0.url)).inserted }
        return hits.prefix(12).map {
            ValueChain.Evidence(url: $0.url, label: $0.title, snippet: $0.snippet, isFiling: false)
        }
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
