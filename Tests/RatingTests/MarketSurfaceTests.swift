import Contracts
import Foundation
import HTTPServer
import MarketData
import Messaging
import Redis
import Runtime
import Synchronization
import TestSupport
import Testing
import TickerPage
import UpstreamFakes

/// Massive's ratios endpoint over three linked pages of two rows, counting its calls; `down` answers 503.
private func pagedRatios(calls: Counter, down: Flag, delay: Duration = .zero) -> FakeUpstream.Handler {
    { request in
        calls.next()
        if delay > .zero { try? await Task.sleep(for: delay) }
        guard !down.isOn else { return jsonResponse(503, "{}") }
        let cursors = ["", "p2", "p3"]
        guard let index = cursors.firstIndex(of: request.query["cursor"] ?? "") else { return jsonResponse(400, "{}") }
        let ticker = request.query["ticker"] ?? ""
        let rows = (0..<2).map { #"{"ticker":"\#(ticker)","price":\#(index * 2 + $0)}"# }
        let next =
            index + 1 < cursors.count ? #","next_url":"https://api.massive.com/x?cursor=\#(cursors[index + 1])""# : ""
        return jsonResponse(200, #"{"status":"OK","results":[\#(rows.joined(separator: ","))]\#(next)}"#)
    }
}

private func surface(_ fake: FakeUpstream, redis: RedisClient) -> MarketSurfacePages {
    var settings = MarketSurfaceConfiguration()
    settings.maxRetries = 0
    return MarketSurfacePages(
        pages: MarketDataPages(
            configuration: MarketDataConfiguration(massiveBaseURL: fake.baseURL, massiveAPIKey: "k"),
            settings: settings, http: testHTTPClient, logger: quietLogger()), redis: redis, logger: quietLogger())
}

@Suite("Market data surface (Rating, real Redis)")
struct MarketSurfaceTests {
    /// A fresh ticker per test run, so answers cached by an earlier run in the same stack never interfere.
    static func ticker() -> String { "T" + String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased() }

    @Test func aCursorWalkReturnsEveryRowOnceAndARepeatIsServedFromRedis() async throws {
        let redis = try await redisClient()
        let calls = Counter()
        let fake = try FakeUpstream(pagedRatios(calls: calls, down: Flag()))
        let ticker = Self.ticker()
        func walk(_ pages: MarketSurfacePages) async throws -> (prices: [Double], cache: [String?]) {
            var cursor: String?
            var prices: [Double] = []
            var cache: [String?] = []
            for _ in 0..<10 {
                let reply = await pages.ratios(FinancialRatiosCommand(ticker: ticker, limit: 2, cursor: cursor))
                #expect(reply.status == 200)
                let page = try decodeBody(FinancialRatiosResponse.self, reply)
                prices += page.ratios.compactMap(\.price)
                cache.append(header(reply, "X-Market-Data-Cache"))
                cursor = page.nextCursor
                if cursor == nil { break }
            }
            return (prices, cache)
        }
        let first = try await walk(surface(fake, redis: redis))
        #expect(first.prices == [0, 1, 2, 3, 4, 5])
        #expect(first.cache == ["miss", "miss", "miss"])
        #expect(calls.count == 3)
        // Another replica's walk (a second surface over the same Redis) reads the three cached pages.
        let second = try await walk(surface(fake, redis: redis))
        #expect(second.prices == first.prices)
        #expect(second.cache == ["hit", "hit", "hit"])
        #expect(calls.count == 3)
        await fake.shutdown()
    }

    @Test func fiftyConcurrentIdenticalRequestsMakeOneUpstreamCall() async throws {
        let redis = try await redisClient()
        let calls = Counter()
        let fake = try FakeUpstream(pagedRatios(calls: calls, down: Flag(), delay: .milliseconds(200)))
        let pages = surface(fake, redis: redis)
        let command = FinancialRatiosCommand(ticker: Self.ticker(), limit: 2)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { await pages.ratios(command).status } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 50))
        #expect(calls.count == 1)
        await fake.shutdown()
    }

    @Test func fiftyConcurrentIdenticalChainRequestsMakeOneUpstreamCall() async throws {
        let redis = try await redisClient()
        let calls = Counter()
        let fake = try FakeUpstream { request in
            calls.next()
            try? await Task.sleep(for: .milliseconds(200))
            guard request.path.hasPrefix("/v3/snapshot/options/") else { return jsonResponse(404, "{}") }
            return jsonResponse(
                200,
                #"{"status":"OK","request_id":"c1","results":[{"break_even_price":151.2,"implied_volatility":0.31,"open_interest":1200,"greeks":{"delta":0.52,"gamma":0.04,"theta":-0.08,"vega":0.2},"last_quote":{"bid":1.1,"ask":1.3,"bid_size":10,"ask_size":12,"last_updated":1704067200123456789},"last_trade":{"price":1.2,"size":3,"sip_timestamp":1704067100000000000},"day":{"open":1,"high":1.4,"low":0.9,"close":1.2,"volume":321},"details":{"ticker":"O:SPY250117C00500000","contract_type":"call","exercise_style":"american","expiration_date":"2025-01-17","strike_price":500,"shares_per_contract":100}}]}"#
            )
        }
        let pages = surface(fake, redis: redis)
        let command = OptionsChainCommand(underlying: Self.ticker(), contractType: "call", limit: 10)
        let replies = await withTaskGroup(of: Reply.self) { group in
            for _ in 0..<50 { group.addTask { await pages.optionsChain(command) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.map(\.status) == Array(repeating: 200, count: 50))
        #expect(calls.count == 1)
        let chain = try decodeBody(OptionsChainResponse.self, try #require(replies.first))
        let contract = try #require(chain.contracts.first)
        #expect(contract.underlyingTicker == command.underlying)  // Massive left it out: the queried underlying
        #expect(contract.quote?.ts == 1_704_067_200)
        #expect(contract.trade?.ts == 1_704_067_100)
        #expect(contract.greeks?.delta == 0.52)
        #expect(fake.requests.first?.query["contract_type"] == "call")
        await fake.shutdown()
    }

    @Test func thePlansPaceIsSharedAndAnsweredAsRateLimitedPastTheDeadline() async throws {
        let redis = try await redisClient()
        let key = "mapvest:test:pace:" + Self.ticker()
        let one = MassivePace(perMinute: 2, redis: redis, key: key, logger: quietLogger())
        let other = MassivePace(perMinute: 2, redis: redis, key: key, logger: quietLogger())  // another replica
        let soon = ContinuousClock.now + .milliseconds(500)
        #expect(await one.acquire(soon))
        #expect(await other.acquire(soon))
        let started = ContinuousClock.now
        #expect(await one.acquire(ContinuousClock.now + .milliseconds(500)) == false)  // next slot in 30 s
        #expect(ContinuousClock.now - started < .milliseconds(400))  // refused at once, not after waiting

        let calls = Counter()
        let fake = try FakeUpstream(pagedRatios(calls: calls, down: Flag()))
        let pages = MarketSurfacePages(
            pages: MarketDataPages(
                configuration: MarketDataConfiguration(massiveBaseURL: fake.baseURL, massiveAPIKey: "k"),
                settings: MarketSurfaceConfiguration(), http: testHTTPClient, pace: one, logger: quietLogger()),
            redis: redis, logger: quietLogger())
        let reply = await TaskDeadline.$current.withValue(ContinuousClock.now + .seconds(1)) {
            await pages.ratios(FinancialRatiosCommand(ticker: Self.ticker(), limit: 1))
        }
        #expect(reply.status == 429)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"error":"market data rate limited"}"#)
        #expect(calls.count == 0)
        await fake.shutdown()
    }

    @Test func anOutageAnswersTheContractStatusAndIsNeverCached() async throws {
        let redis = try await redisClient()
        let calls = Counter()
        let down = Flag(true)
        let fake = try FakeUpstream(pagedRatios(calls: calls, down: down))
        let pages = surface(fake, redis: redis)
        let command = FinancialRatiosCommand(ticker: Self.ticker(), limit: 2)
        let failed = await pages.ratios(command)
        #expect(failed.status == 503)
        #expect(String(decoding: failed.body, as: UTF8.self) == #"{"error":"financial ratios unavailable"}"#)
        down.set(false)
        let recovered = await pages.ratios(command)
        #expect(recovered.status == 200)
        #expect(header(recovered, "X-Market-Data-Cache") == "miss")
        #expect(calls.count == 2)
        await fake.shutdown()
    }
}
