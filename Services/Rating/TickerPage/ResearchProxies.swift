import Contracts
import Foundation
import Messaging
import RatingAdapters
import Runtime

/// `GET /v1/analysis/{ticker}` and the stored Prism/Situate summaries, read from the Underlying service through the
/// same `UnderlyingClient` the rating evidence uses. Each call has its own budget (`timeout`, cut to the command's
/// deadline); a service that is off, down or slow gives a prompt, documented error — never a 500 or a hang.
public struct ResearchProxies: Sendable {
    let underlying: UnderlyingClient
    let timeout: Duration

    public init(underlying: UnderlyingClient, timeout: Duration = .seconds(4)) {
        self.underlying = underlying
        self.timeout = timeout
    }

    private func budget(_ deadline: ContinuousClock.Instant) -> Duration {
        max(.milliseconds(50), min(timeout, deadline - ContinuousClock.now - .milliseconds(200)))
    }

    // MARK: - Analysis

    /// The upstream snapshot normalized to `AnalysisSnapshot`; 502 `underlying analysis <status>` on a non-200,
    /// 504 on a timeout, 502 when unreachable, 503 when switched off.
    public func analysis(_ command: AnalysisCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let reply = await underlying.send(
            "/api/analysis/\(UnderlyingClient.segment(command.ticker))", kind: "analysis", timeout: budget(deadline))
        switch reply {
        case .notConfigured: return .error(503, "underlying service not configured")
        case .timedOut: return .error(504, "underlying analysis timed out")
        case .unreachable: return .error(502, "underlying analysis unreachable")
        case .answered(let status, let body, _):
            // Underlying knows no snapshot for this ticker: a not-found, not a failure of the upstream.
            if status == 404 { return .error(404, "no analysis for this ticker yet") }
            guard status == 200 else { return .error(502, "underlying analysis \(status)") }
            guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
                return .error(502, "underlying analysis returned no snapshot")
            }
            return .json(200, Self.snapshot(fields, ticker: command.ticker, sourceURL: underlying.url("/")))
        }
    }

    /// Top-level fields first, then the `quote` and `fundamentals` objects, in snake or camel case.
    static func snapshot(_ j: [String: JSONValue], ticker: String, sourceURL: String) -> AnalysisSnapshot {
        let quote = j["quote"]?.object ?? [:]
        let fund = j["fundamentals"]?.object ?? [:]
        func text(_ keys: [([String: JSONValue], String)]) -> String? {
            keys.lazy.compactMap { $0.0[$0.1]?.text }.first
        }
        func number(_ keys: [([String: JSONValue], String)]) -> Double? {
            keys.lazy.compactMap { $0.0[$0.1]?.numeric }.first
        }
        func raw(_ keys: [([String: JSONValue], String)]) -> JSONValue? {
            keys.lazy.compactMap { pair -> JSONValue? in
                switch pair.0[pair.1] {
                case .string(let s)? where !s.isEmpty: .string(s)
                case .number(let n)? where n.isFinite: .number(n)
                default: nil
                }
            }.first
        }
        var s = AnalysisSnapshot(ticker: ticker)
        s.name = text([(j, "name"), (j, "company_name"), (quote, "name")])
        s.sector = text([(j, "sector"), (fund, "sector")])
        s.industry = text([(j, "industry"), (fund, "industry")])
        s.price = number([(j, "price"), (j, "current_price"), (quote, "price"), (quote, "regularMarketPrice")])
        s.change = number([(j, "change"), (quote, "change")])
        s.changePercent = number([(j, "changePercent"), (j, "change_percent"), (quote, "changePercent")])
        s.marketCap = raw([(j, "marketCap"), (j, "market_cap"), (fund, "marketCap"), (fund, "market_cap")])
        s.trailingPe = raw([(j, "trailingPe"), (j, "trailing_pe"), (fund, "trailingPE"), (fund, "trailing_pe")])
        s.annualVolatility = number([(j, "annualVolatility"), (j, "annual_volatility"), (fund, "annualVolatility")])
        s.fiftyTwoWeekHigh = number([(j, "fiftyTwoWeekHigh"), (j, "fifty_two_week_high"), (quote, "fiftyTwoWeekHigh")])
        s.fiftyTwoWeekLow = number([(j, "fiftyTwoWeekLow"), (j, "fifty_two_week_low"), (quote, "fiftyTwoWeekLow")])
        // A brief counts only when it says something (over 40 characters).
        s.brief = ["brief", "analysis", "summary"].lazy.compactMap { j[$0]?.text }.first { $0.count > 40 }
        if s.brief != nil { s.briefProvider = text([(j, "brief_provider"), (j, "provider")]) }
        s.sourceUrl = sourceURL
        return s
    }

    // MARK: - Summaries

    /// The stored packet's summary passed through unchanged; otherwise `{error, code}` with the engine's status:
    /// 404 `<engine>_packet_not_found`, 400 `<engine>_bad_request`, 429/503 `<engine>_busy` (Retry-After kept),
    /// 504 `<engine>_timeout` (upstream or ours), 502 `<engine>_upstream_failed`, 503 `<engine>_not_configured`.
    public func summary(_ command: ResearchSummaryCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let engine = command.engine
        let label = engine.label
        let code = engine.rawValue
        let reply = await underlying.send(
            UnderlyingClient.summaryPath(engine, command.ticker), kind: "\(code)_summary", timeout: budget(deadline))
        switch reply {
        case .notConfigured:
            return Self.coded(503, "\(label) engine is not configured", "\(code)_not_configured")
        case .timedOut:
            return Self.coded(504, "\(label) engine timed out", "\(code)_timeout")
        case .unreachable:
            return Self.coded(502, "\(label) engine is unreachable", "\(code)_upstream_failed")
        case .answered(let status, let body, let retryAfter):
            switch status {
            case 200:
                guard case .object? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
                    return Self.coded(502, "\(label) engine returned an unreadable summary", "\(code)_upstream_failed")
                }
                return Reply(status: 200, body: body)
            default:
                return Self.engineFailure(engine, status: status, detail: nil, retryAfter: retryAfter)
            }
        }
    }

    /// An engine's non-200 as the client reads it: 404 `<engine>_packet_not_found`, 400 `<engine>_bad_request`,
    /// 429/503 `<engine>_busy` (Retry-After kept), 504 `<engine>_timeout`, else 502 `<engine>_upstream_failed` with
    /// `upstreamStatus`. `detail` (the engine's own words) replaces the fixed message where the engine may speak.
    static func engineFailure(_ engine: ResearchEngine, status: Int, detail: String?, retryAfter: String?) -> Reply {
        let label = engine.label
        let code = engine.rawValue
        switch status {
        case 404:
            return Self.coded(
                404, detail ?? "no \(label) packet for this ticker yet — POST /v1/\(code) to build one",
                "\(code)_packet_not_found")
        case 400:
            return Self.coded(400, detail ?? "\(label) engine rejected the request", "\(code)_bad_request")
        case 429, 503:
            var busy = Self.coded(
                status, detail ?? "\(label) engine is busy; retry shortly", "\(code)_busy", upstream: status)
            if let retryAfter, retryAfter.count <= 32, retryAfter.allSatisfy(\.isNumber) {
                busy.headers.append(("Retry-After", retryAfter))
            }
            return busy
        case 504:
            return Self.coded(504, detail ?? "\(label) engine timed out", "\(code)_timeout")
        default:
            return Self.coded(502, "\(label) engine is unavailable", "\(code)_upstream_failed", upstream: status)
        }
    }

    private struct CodedError: Encodable {
        let error: String
        let code: String
        let upstreamStatus: Int?
    }

    /// `{"error", "code", "upstreamStatus"?}` (the original's error body for these routes).
    static func coded(_ status: Int, _ message: String, _ code: String, upstream: Int? = nil) -> Reply {
        .json(status, CodedError(error: message, code: code, upstreamStatus: upstream))
    }
}

extension JSONValue {
    var object: [String: JSONValue]? {
        guard case .object(let o) = self else { return nil }
        return o
    }

    /// A non-empty trimmed string.
    var text: String? {
        guard case .string(let s) = self else { return nil }
        let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    /// A finite number, or a string holding one.
    var numeric: Double? {
        switch self {
        case .number(let n): n.isFinite ? n : nil
        case .string(let s): Double(s.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: nil
        }
    }
}
