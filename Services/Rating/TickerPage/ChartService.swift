import Charts
import Contracts
import Foundation
import MarketData
import Messaging
import RatingAdapters
import Redis
import Runtime
import Synchronization

/// `GET /v1/chart/{type}`: the Underlying Analyzer's chart when it answers (its image passed through unchanged), and
/// otherwise — for price, regression, ridge and auction — a PNG we draw with cairo from the shared price history,
/// once per history across replicas (the drawing is kept in Redis as long as the history it was drawn from).
///
/// Size limits: the answer travels back as one Kafka reply, and librdkafka's producer refuses messages over
/// `message.max.bytes` (1,000,000 by default; Apache Kafka's broker default is 1,048,588). Our PNGs are 1080 × 720 and
/// 55–140 KB (75–190 KB base64); an Underlying answer whose encoded reply would exceed `maxReplyBytes` is not
/// passed on: we draw the chart ourselves instead (or answer 502 for types only Underlying draws).
public struct ChartService: Sendable {
    /// The largest reply body this service produces (headroom under the producer's 1,000,000-byte limit).
    public static let maxReplyBytes = 900_000
    public static let cacheControl = "public, max-age=300"
    /// Time kept back from the Underlying attempt for drawing the chart ourselves.
    static let localReserve: Duration = .milliseconds(2500)

    let histories: PriceHistoryStore
    let underlying: UnderlyingClient
    let renderer: ChartRenderer
    /// Charts we drew, shared by every replica: `mapvest:chart:v1:<kind>::<SYM>::<period>::<interval>::<fetchedAt>`.
    let drawings: RedisSharedCache<Drawing>
    /// Longest wait for Underlying's chart.
    let underlyingTimeout: Duration
    let backoff: UnderlyingBackoff
    let logger: Logger

    public init(
        histories: PriceHistoryStore, underlying: UnderlyingClient, renderer: ChartRenderer, redis: RedisClient?,
        underlyingTimeout: Duration = .seconds(4), underlyingBackoff: Duration = .seconds(30), logger: Logger
    ) {
        self.backoff = UnderlyingBackoff(period: underlyingBackoff)
        self.histories = histories
        self.underlying = underlying
        self.renderer = renderer
        self.drawings = RedisSharedCache(
            redis: redis, prefix: "mapvest:chart:v1:", lockTTL: .seconds(5), waitForOther: .seconds(1), logger: logger)
        self.underlyingTimeout = underlyingTimeout
        self.logger = logger
    }

    public func chart(_ command: ChartCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let local = Self.localKind(command.type)
        var missed = "not asked"
        if let name = command.type.underlyingName {
            let left = deadline - ContinuousClock.now - .milliseconds(150)
            let timeout = local == nil ? left : min(underlyingTimeout, left - Self.localReserve)
            if local != nil, let reason = backoff.skipReason() {
                missed = reason
            } else if timeout > .milliseconds(100) {
                switch await fromUnderlying(command, name: name, timeout: timeout) {
                case .success(let reply): return reply
                case .failure(let reason):
                    missed = reason.text
                    if reason.down { backoff.failed(reason.text) }
                }
            } else {
                missed = "no time left"
            }
        }
        guard let local else {
            return .error(502, "underlying chart \(command.type.rawValue) unavailable: \(missed)")
        }
        return await drawn(command, kind: local, underlyingNote: command.type.underlyingName == nil ? nil : missed)
    }

    /// The kind we can draw for a type, if any.
    static func localKind(_ type: ChartType) -> ChartKind? {
        switch type {
        case .price: .price
        case .regression: .regression
        case .ridge, .ridgeGrowth: .ridge
        case .auction: .auction
        case .performance, .flowCompass, .torque, .portfolio, .volatility: nil
        }
    }

    // MARK: - Underlying

    struct Miss: Error {
        let text: String
        /// The service did not answer at all (timeout, connection refused): worth a back-off.
        var down = false
    }

    private struct UpstreamChart: Decodable {
        struct Image: Decodable {
            var filename: String?
            var mime: String?
            var data: String?
        }
        var images: [Image]?
        var provider: String?
        var providerNote: String?
        var meta: [String: JSONValue]?

        enum CodingKeys: String, CodingKey {
            case images, provider, meta
            case providerNote = "provider_note"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            images = try? c.decodeIfPresent([Image].self, forKey: .images)
            provider = try? c.decodeIfPresent(String.self, forKey: .provider)
            providerNote = try? c.decodeIfPresent(String.self, forKey: .providerNote)
            meta = try? c.decodeIfPresent([String: JSONValue].self, forKey: .meta)
        }
    }

    private func fromUnderlying(_ command: ChartCommand, name: String, timeout: Duration) async -> Result<Reply, Miss> {
        var body: [String: JSONValue] = [
            "ticker": .string(command.ticker), "period": .string(command.period.rawValue),
            "interval": .string(command.interval.rawValue),
        ]
        if command.type == .performance, let month = command.month { body["month"] = .number(Double(month)) }
        let json = (try? JSONEncoder().encode(body)).map(Array.init) ?? []
        let reply = await underlying.send(
            "/api/charts/\(name)", method: "POST", json: json, kind: "chart", timeout: timeout)
        switch reply {
        case .notConfigured: return .failure(Miss(text: "not configured"))
        case .timedOut: return .failure(Miss(text: "timed out", down: true))
        case .unreachable: return .failure(Miss(text: "unreachable", down: true))
        case .answered(let status, let bytes, _):
            guard status == 200 else { return .failure(Miss(text: "http \(status)")) }
            guard let chart = try? JSONDecoder().decode(UpstreamChart.self, from: Data(bytes)),
                let image = chart.images?.first, let data = image.data, !data.isEmpty
            else { return .failure(Miss(text: "no chart image returned")) }
            let meta = chart.meta ?? [:]
            let levels = ChartLevels(poc: meta["poc"]?.number, vah: meta["vah"]?.number, val: meta["val"]?.number)
            let response = ChartResponse(
                ticker: command.ticker, type: command.type.rawValue, period: command.period.rawValue,
                interval: command.interval.rawValue,
                image: ChartImage(mime: image.mime ?? "image/png", data: data, filename: image.filename),
                levels: levels.poc == nil && levels.vah == nil && levels.val == nil ? nil : levels, meta: meta,
                provider: chart.provider, providerNote: chart.providerNote, sourceUrl: underlying.url("/"))
            let encoded = Reply.json(200, response, headers: [("Cache-Control", Self.cacheControl)])
            guard encoded.body.count <= Self.maxReplyBytes else {
                logger.warning(
                    "underlying chart too large for a reply",
                    [LogKeys.chartType: .string(name), LogKeys.bytes: .int(encoded.body.count)])
                return .failure(Miss(text: "image too large for a reply"))
            }
            return .success(encoded)
        }
    }

    // MARK: - Drawn here

    /// A chart we drew, as kept in Redis: the base64 PNG and the numbers behind it; or why it could not be drawn.
    enum Drawing: Codable, Sendable {
        case drawn(data: String, levels: ChartLevels?, meta: [String: JSONValue])
        case failed(status: Int, message: String)
    }

    private func drawn(_ command: ChartCommand, kind: ChartKind, underlyingNote: String?) async -> Reply {
        // Charts read daily bars unless weekly ones were asked, or 15-minute ones over at most a month.
        let interval: PriceInterval =
            command.interval == .oneWeek
                || (command.interval == .fifteenMinutes && [.fiveDays, .oneMonth].contains(command.period))
            ? command.interval : .oneDay
        guard let entry = await histories.history(command.ticker, period: command.period, interval: interval) else {
            return .error(502, "price history unavailable")
        }
        // One drawing per history (its fetch time is in the key) for as long as the history is kept.
        let key =
            "\(kind.rawValue)::\(command.ticker)::\(command.period.rawValue)::\(interval.rawValue)::\(entry.fetchedAt)"
        let outcome = await drawings.value(
            key, ttl: { if case .drawn = $0 { PriceHistoryStore.ttl } else { nil } }
        ) { [renderer, logger] in
            await Self.draw(
                kind, command: command, entry: entry, interval: interval, renderer: renderer, logger: logger)
        }
        MetricsRegistry.shared.counter(
            "charts_drawn_total", help: "Charts we drew, by kind and whether the drawing came from the cache",
            labels: ["kind": kind.rawValue, "origin": outcome.origin.rawValue]
        ).increment()
        switch outcome.value {
        case .failed(let status, let message):
            return .error(status, message)
        case .drawn(let data, let levels, let meta):
            let provider = entry.history.provider
            var note = "Drawn by Mapvest (cairo) from \(provider.displayName) \(Self.barWord(interval)) bars"
            if let underlyingNote { note += "; Underlying Analyzer chart unavailable (\(underlyingNote))" }
            let response = ChartResponse(
                ticker: command.ticker, type: command.type.rawValue, period: command.period.rawValue,
                interval: interval.rawValue,
                image: ChartImage(
                    mime: "image/png", data: data,
                    filename: "\(command.ticker)-\(command.type.rawValue)-\(command.period.rawValue).png"),
                levels: levels, meta: meta, provider: provider.rawValue, providerNote: note, sourceUrl: nil)
            return .json(200, response, headers: [("Cache-Control", Self.cacheControl)])
        }
    }

    private static func draw(
        _ kind: ChartKind, command: ChartCommand, entry: PriceHistoryStore.Entry, interval: PriceInterval,
        renderer: ChartRenderer, logger: Logger
    ) async -> Drawing {
        let request = ChartRequest(
            kind: kind, ticker: command.ticker, period: command.period.rawValue, bars: entry.history.bars,
            source: entry.history.provider.displayName)
        let chart: RenderedChart
        do {
            chart = try await renderer.render(request)
        } catch {
            switch error.kind {
            case .insufficientData: return .failed(status: 502, message: "price history unavailable: \(error.detail)")
            case .busy: return .failed(status: 503, message: "chart renderer busy")
            case .renderFailed:
                logger.error(
                    "chart rendering failed",
                    [LogKeys.chartType: .string(kind.rawValue), LogKeys.error: .string(error.detail)])
                return .failed(status: 500, message: "internal error")
            }
        }
        var meta: [String: JSONValue] = chart.facts.mapValues { .number($0) }
        meta["renderer"] = .string("mapvest-cairo")
        meta["width"] = .number(Double(chart.width))
        meta["height"] = .number(Double(chart.height))
        meta["scale"] = .number(request.scale)
        meta["interval"] = .string(interval.rawValue)
        return .drawn(
            data: Data(chart.png).base64EncodedString(),
            levels: chart.levels.map { ChartLevels(poc: $0.poc, vah: $0.vah, val: $0.val) }, meta: meta)
    }

    static func barWord(_ interval: PriceInterval) -> String {
        switch interval {
        case .fifteenMinutes: "15-minute"
        case .oneDay: "daily"
        case .oneWeek: "weekly"
        }
    }
}

/// After Underlying timed out or could not be reached, the charts we can draw ourselves skip it for `period`, so a
/// dead service does not cost every chart its full wait (types only Underlying draws still ask). Per process.
final class UnderlyingBackoff: Sendable {
    private struct State {
        var until: ContinuousClock.Instant?
        var reason = ""
    }
    private let state = Mutex(State())
    let period: Duration

    init(period: Duration) { self.period = period }

    func failed(_ reason: String) {
        guard period > .zero else { return }
        state.withLock { $0 = State(until: .now + period, reason: reason) }
    }

    /// Why Underlying is skipped right now, or nil when it should be asked.
    func skipReason() -> String? {
        state.withLock { s in
            guard let until = s.until, until > .now else { return nil }
            return
                "skipped after it \(s.reason == "timed out" ? "timed out" : "was \(s.reason)") within the last \(period.inSeconds) s"
        }
    }
}

extension Duration {
    var inSeconds: Int64 { components.seconds }
}

extension JSONValue {
    /// The value when it is a finite number.
    var number: Double? {
        guard case .number(let n) = self, n.isFinite else { return nil }
        return n
    }
}
