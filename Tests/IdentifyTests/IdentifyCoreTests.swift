import Contracts
import Finance
import Foundation
import IdentifyCore
import Testing

/// Identify's pure logic: the offline fallback order, the brand's display name, the effects an answer leaves behind
/// (find row, push dedupe key, completion event) and the journal's identity key. No stack needed.
struct ReadingFallbackTests {
    let fallback = ReadingFallback()

    @Test func ocrDirectMatchBeatsAnEarlierSubstringMatch() {
        // Line 1 only contains a seed key; line 2 is one: the direct hit wins although it comes later.
        let (reading, path) = fallback.reading(
            ocrLines: ["Starbucks Coffee #1234 Main St", "TARGET"], ocrRan: true, hint: "Nike")
        #expect(path == .ocr)
        #expect(reading.modelUsed == "ocr:tesseract")
        #expect(
            reading.detected == [Detection(brand: "TARGET", sector: reading.detected.first?.sector, confidence: .high)])
        #expect(reading.visibleText == ["Starbucks Coffee #1234 Main St", "TARGET"])
    }

    @Test func ocrSubstringMatchKeepsTheWordsAsRead() throws {
        let (reading, path) = fallback.reading(ocrLines: ["Welcome to Starbucks Coffee #1234"], ocrRan: true, hint: nil)
        #expect(path == .ocr)
        let detection = try #require(reading.detected.first)
        #expect(detection.brand == "Starbucks Coffee")
        #expect(detection.confidence == .medium)
    }

    @Test func linesJoinedAreACandidateToo() throws {
        // Neither line alone names the brand; read together they do.
        let (reading, path) = fallback.reading(ocrLines: ["THE HOME", "DEPOT"], ocrRan: true, hint: nil)
        #expect(path == .ocr)
        #expect(try #require(reading.detected.first).brand == "THE HOME DEPOT")
    }

    @Test func hintOnlyWhenOCRMatchedNothing() throws {
        let (reading, path) = fallback.reading(ocrLines: ["OPEN 24 HOURS", "EXIT"], ocrRan: true, hint: "  starbucks ")
        #expect(path == .hint)
        #expect(reading.modelUsed == "hint:seed")
        #expect(try #require(reading.detected.first).brand == "starbucks")
        #expect(reading.visibleText == ["OPEN 24 HOURS", "EXIT"])
    }

    @Test func nothingMatchedSaysWhichPathRan() {
        let (afterOCR, path) = fallback.reading(ocrLines: ["EXIT"], ocrRan: true, hint: "qwzx")
        #expect(path == .none && afterOCR.detected.isEmpty && afterOCR.modelUsed == "ocr:tesseract")
        let (withoutOCR, _) = fallback.reading(ocrLines: [], ocrRan: false, hint: nil)
        #expect(withoutOCR.modelUsed == "none" && withoutOCR.visibleText.isEmpty)
    }

    @Test func visibleTextIsCapped() {
        let lines = (1...60).map { "line \($0)" }
        let (reading, _) = fallback.reading(ocrLines: lines, ocrRan: true, hint: nil)
        #expect(reading.visibleText == Array(lines.prefix(ReadingFallback.visibleLines)))
    }

    @Test func displayName() throws {
        let matcher = BrandMatcher.shared
        let substring = try #require(matcher.longestSubstring("Fresh STARBUCKS Coffee here"))
        #expect(ReadingFallback.displayName(of: substring, in: "  Fresh STARBUCKS Coffee here ") == "STARBUCKS Coffee")
        let direct = try #require(matcher.direct("MCDONALDS"))
        #expect(ReadingFallback.displayName(of: direct, in: " MCDONALDS\n") == "MCDONALDS")
    }
}

struct IdentifyEffectsPlanTests {
    static let noon = Date(timeIntervalSince1970: 1_764_590_400)  // 2025-12-01T12:00:00Z

    static func investable(_ name: String, ticker: String?, comparable: String? = nil, price: Double? = nil)
        -> Investable
    {
        Investable(
            brand: Brand(name: name, isPublic: ticker != nil, ticker: ticker.map { Ticker(symbol: $0) }),
            comparables: comparable.map {
                [Comparable(ticker: $0, name: "Peer", score: 0.8, reasoning: "", sources: [])]
            }
                ?? [],
            confidence: .high, sources: [],
            quote: price.map {
                Quote(
                    symbol: ticker ?? "", price: $0, change: 0, changePct: 0, currency: "USD",
                    ts: "2025-12-01T12:00:00Z",
                    disclaimer: "")
            })
    }

    static func command(userId: String?, deviceId: String? = nil) -> IdentifyPhotoCommand {
        IdentifyPhotoCommand(
            photoKey: "k", photoContentType: "image/jpeg", photoBytes: 3, hint: nil,
            location: LatLng(lat: 40.7, lng: -74),
            roi: nil, userId: userId, deviceId: deviceId)
    }

    static func response(_ investables: [Investable]) -> IdentifyResponse {
        IdentifyResponse(
            identification: Identification(
                visibleText: ["x"], detected: [Detection(brand: "Starbucks", confidence: .high)],
                location: LatLng(lat: 40.7, lng: -74), modelUsed: "ocr:tesseract"),
            investables: investables)
    }

    @Test func publicTopFindAndItsPush() throws {
        let effects = IdentifyEffectsPlan.compute(
            Self.command(userId: "u1"),
            response: Self.response([Self.investable("Starbucks", ticker: "SBUX", price: 90)]),
            path: .ocr, latencyMs: 42, awardKey: "a1", now: Self.noon)
        let find = try #require(effects.find)
        #expect(find.brand == "Starbucks" && find.ticker == "SBUX" && find.isPublic == true && find.comparable == nil)
        #expect(find.lat == 40.7 && find.lng == -74 && find.foundPrice == 90)
        let push = try #require(effects.push)
        #expect(push.userIds == ["u1"] && push.title == "Found it" && push.body == "$SBUX — Starbucks")
        #expect(push.dedupe == [PushDedupe(slot: "identify_done", key: "2025120112-sbux")])
        #expect(push.target == PushTarget(type: "company", fields: ["ticker": .string("SBUX")]))
        #expect(effects.eventKey == "u1" && effects.awardKey == "a1")
        #expect(
            effects.completed.path == "ocr" && effects.completed.signedIn && effects.completed.publicInvestables == 1)
    }

    @Test func privateTopFindKeepsItsComparableAndDedupesByBrand() throws {
        let top = Self.investable("Trader Joe's", ticker: nil, comparable: "KR")
        let find = IdentifyEffectsPlan.findInput(top, location: nil)
        #expect(find.ticker == nil && find.isPublic == false && find.comparable == "KR" && find.lat == nil)
        let push = IdentifyEffectsPlan.pushRequest(userId: "u1", top: top, now: Self.noon)
        #expect(push.dedupe.map(\.key) == ["2025120112-trader joe's"])
        #expect(push.target == PushTarget(type: "camera"))
        #expect(push.body == "No public match for Trader Joe's — see its cousins.")
    }

    @Test func anonymousCallersLeaveOnlyTheEvent() {
        let effects = IdentifyEffectsPlan.compute(
            Self.command(userId: nil, deviceId: "d1"),
            response: Self.response([Self.investable("Starbucks", ticker: "SBUX")]),
            path: .hint, latencyMs: 5, awardKey: "a1", now: Self.noon)
        #expect(effects.find == nil && effects.push == nil)
        #expect(effects.eventKey == "d1" && !effects.completed.signedIn && effects.completed.investables == 1)
        let nobody = IdentifyEffectsPlan.compute(
            Self.command(userId: nil), response: Self.response([]), path: .none, latencyMs: 5, awardKey: "a1")
        #expect(nobody.eventKey == "anonymous")
    }
}

struct FindIdentityTests {
    static func input(brand: String, ticker: String? = nil, comparable: String? = nil) -> RecordFindInput {
        RecordFindInput(
            brand: brand, ticker: ticker, isPublic: ticker != nil, comparable: comparable, confidence: .high, lat: nil,
            lng: nil, foundPrice: nil)
    }

    @Test func tickerThenComparableThenBrand() {
        #expect(FindIdentity.key(Self.input(brand: "Starbucks", ticker: " sbux ", comparable: "KR")) == "SBUX")
        #expect(FindIdentity.key(Self.input(brand: "Trader Joe's", ticker: "  ", comparable: "kr")) == "KR")
        #expect(FindIdentity.key(Self.input(brand: " Trader Joe's ")) == "TRADER JOE'S")
        #expect(FindIdentity.symbol(nil) == nil && FindIdentity.symbol(" ") == nil)
    }
}

struct ProgressRulesTests {
    @Test func levelCurve() {
        #expect([0, 99, 100, 399, 400, 900, -5].map { ProgressRules.level(xp: $0) } == [1, 1, 2, 2, 3, 4, 1])
    }

    @Test func streakExtendsBridgesAndRestarts() {
        let start = ProgressRules.Streak(days: 6, freezes: 1, lastDay: "2026-12-01")
        // The next day extends it, and reaching 7 grants a freeze.
        #expect(ProgressRules.afterFind(start, day: "2026-12-02") == .init(days: 7, freezes: 2, lastDay: "2026-12-02"))
        // The same day (or an earlier one) leaves it alone.
        #expect(ProgressRules.afterFind(start, day: "2026-12-01") == start)
        // One missed day spends a freeze.
        #expect(ProgressRules.afterFind(start, day: "2026-12-03") == .init(days: 7, freezes: 1, lastDay: "2026-12-03"))
        // Without a freeze, or after a longer gap, it restarts at 1.
        let bare = ProgressRules.Streak(days: 3, freezes: 0, lastDay: "2026-12-01")
        #expect(ProgressRules.afterFind(bare, day: "2026-12-03") == .init(days: 1, freezes: 0, lastDay: "2026-12-03"))
        #expect(ProgressRules.afterFind(start, day: "2026-12-09").days == 1)
        #expect(ProgressRules.afterFind(.init(days: 0, freezes: 0, lastDay: nil), day: "2026-12-01").days == 1)
    }
}

/// The database circuit's rule with an injected clock: when it opens, how probes are spaced, what closes it.
struct DatabaseCircuitStateTests {
    let t0 = ContinuousClock.now

    @Test func opensAfterThresholdFailuresInARowAndProbesOncePerInterval() {
        var circuit = DatabaseCircuitState(threshold: 3, window: .seconds(10), probeInterval: .seconds(1))
        var steps: [DatabaseCircuitState.Transition] = []
        steps.append(circuit.recordFailure(now: t0))
        steps.append(circuit.recordFailure(now: t0 + .seconds(1)))
        let allowedWhileClosed = circuit.allowsAttempt(now: t0 + .seconds(1))
        steps.append(circuit.recordFailure(now: t0 + .seconds(2)))
        #expect(steps == [.none, .none, .opened])
        #expect(allowedWhileClosed)
        #expect(circuit.isOpen)
        let probes = [2500, 3000, 3500].map { circuit.allowsAttempt(now: t0 + .milliseconds($0)) }
        #expect(probes == [false, true, false])
        let failureWhileOpen = circuit.recordFailure(now: t0 + .seconds(4))
        let success = circuit.recordSuccess()
        #expect(failureWhileOpen == .none && success == .closed)
        #expect(!circuit.isOpen)
        let allowedAfter = circuit.allowsAttempt(now: t0 + .seconds(4))
        let secondSuccess = circuit.recordSuccess()
        #expect(allowedAfter && secondSuccess == .none)
    }

    @Test func failuresFurtherApartThanTheWindowStartOver() {
        var circuit = DatabaseCircuitState(threshold: 2, window: .seconds(10), probeInterval: .seconds(1))
        let steps = [0, 11, 12].map { circuit.recordFailure(now: t0 + .seconds($0)) }
        #expect(steps == [.none, .none, .opened])
    }

    @Test func aSuccessResetsTheCountAndAZeroThresholdNeverOpens() {
        var circuit = DatabaseCircuitState(threshold: 2)
        let first = circuit.recordFailure(now: t0)
        let success = circuit.recordSuccess()
        let afterReset = circuit.recordFailure(now: t0 + .seconds(1))
        #expect([first, success, afterReset] == [.none, .none, .none])
        var off = DatabaseCircuitState(threshold: 0)
        let steps = (0..<10).map { off.recordFailure(now: t0 + .seconds($0)) }
        #expect(steps.allSatisfy { $0 == .none })
        #expect(!off.isOpen)
    }
}
