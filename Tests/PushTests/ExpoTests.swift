import Contracts
import ExpoPush
import Foundation
import HTTPServer
import PushAdapters
import PushCore
import Redis
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

/// The Expo client (docs/COMPATIBILITY.md#expo) against a loopback fake, and the shared Redis pace.
@Suite struct ExpoTests {
    static func client(_ expo: FakeExpo, token: String? = "secret-token") -> ExpoPushClient {
        ExpoPushClient(
            configuration: .init(
                baseURL: expo.baseURL + "/", accessToken: token, timeout: .seconds(3), retryBase: .milliseconds(5)),
            http: testHTTPClient, logger: Logger(label: "expo-tests", level: .error))
    }

    static func message(_ i: Int) -> ExpoMessage {
        ExpoMessage(
            to: "ExponentPushToken[\(i)]", title: "t", body: "b", data: [:], categoryId: "mapvest-settings-v1", ttl: 300
        )
    }

    @Test func retriesTooManyRequestsAndServerErrorsThenMatchesTicketsByIndex() async throws {
        let expo = try FakeExpo { messages, attempt in
            switch attempt {
            case 1: return .error(429, "slow down")
            case 2: return .error(503, "unavailable")
            default:
                return FakeExpo.tickets([
                    .object(["status": .string("ok"), "id": .string("a")]), FakeExpo.deviceNotRegistered,
                    .object(["status": .string("error"), "details": .object(["error": .string("InvalidCredentials")])]),
                ])
            }
        }
        let tickets = await Self.client(expo).send((0..<4).map(Self.message))
        #expect(
            tickets == [.ok(id: "a"), .deviceNotRegistered, .failed(reason: .rejected), .failed(reason: .rejected)])
        #expect(expo.sendRequests == 3)
        let request = try #require(expo.upstream.lastRequest)
        #expect(request.headers["Authorization"] == "Bearer secret-token")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.path == "/--/api/v2/push/send")
        await expo.shutdown()
    }

    @Test func givesUpAfterThreeAttemptsAndNeverRetriesOtherClientErrors() async throws {
        let expo = try FakeExpo { _, _ in .error(500, "down") }
        #expect(await Self.client(expo, token: nil).send([Self.message(1)]) == [.failed(reason: .unavailable)])
        #expect(expo.sendRequests == 3)
        #expect(expo.upstream.lastRequest?.headers["Authorization"] == nil)

        expo.reset()
        expo.respond { _, _ in .error(400, "PUSH_TOO_MANY_EXPERIENCE_IDS") }
        #expect(
            await Self.client(expo).send([Self.message(1), Self.message(2)]) == [
                .failed(reason: .rejected), .failed(reason: .rejected),
            ])
        #expect(expo.sendRequests == 1)
        await expo.shutdown()

        // Nothing listening: network errors are retried, then every message fails.
        let closed = ExpoPushClient(
            configuration: .init(baseURL: "http://127.0.0.1:1", timeout: .seconds(1), retryBase: .milliseconds(1)),
            http: testHTTPClient, logger: Logger(label: "expo-tests", level: .error))
        #expect(await closed.send([Self.message(1)]) == [.failed(reason: .unavailable)])
    }

    @Test func receiptsAreParsed() async throws {
        let expo = try FakeExpo()
        expo.setReceipt("r1", "ok")
        expo.setReceipt("r2", "DeviceNotRegistered")
        expo.setReceipt("r3", "MessageRateExceeded")
        let receipts = await Self.client(expo).receipts(ids: ["r1", "r2", "r3", "r4"])
        #expect(receipts == ["r1": .ok, "r2": .deviceNotRegistered, "r3": .error])
        #expect(expo.receiptCalls == [["r1", "r2", "r3", "r4"]])
        await expo.shutdown()
    }

    @Test func backoffGrowsExponentiallyWithJitter() {
        for attempt in 1...3 {
            let base = 200.0 * Double(1 << (attempt - 1))
            for _ in 0..<50 {
                let ms = ExpoPushClient.backoff(base: .milliseconds(200), attempt: attempt).inMilliseconds
                #expect(ms >= base * 0.5 - 1 && ms <= base * 1.5 + 1)
            }
        }
    }

    @Test func paceIsOneBucketSharedByEveryReplica() async throws {
        let logger = Logger(label: "pace", level: .error)
        let redis = try await RedisClient.make(url: try Stack.redisURL(), size: 2, logger: logger)
        let key = "mapvest:test:pace:\(Hex.random(bytes: 6))"
        let a = ExpoPace(ratePerSecond: 200, redis: redis, key: key, logger: logger)
        let b = ExpoPace(ratePerSecond: 200, redis: redis, key: key, logger: logger)
        #expect(await a.reserve(200) == .zero)  // one second of burst
        // The other replica owes up to half a second, and behind it another half second. The bucket refills while
        // the test runs (slowly, on a loaded box), so only upper bounds and the ordering are exact.
        let waitB = await b.reserve(100)
        #expect(waitB <= .milliseconds(520))
        let waitA = await a.reserve(100)
        #expect(waitA <= .milliseconds(1020))
        #expect(waitA >= .milliseconds(300))
        #expect(waitA > waitB)
        #expect(await ExpoPace(ratePerSecond: 0, redis: redis, key: key, logger: logger).reserve(10_000) == .zero)
        await redis.close()
    }

    @Test func wireValidation() {
        #expect(PushWire.expoToken(" ExponentPushToken[abc] ") == "ExponentPushToken[abc]")
        #expect(PushWire.expoToken("ExpoPushToken[abc]") == "ExpoPushToken[abc]")
        for bad in [
            "ExponentPushToken[]", "ExponentPushToken[a]b", "ExponentPushToken[a]]", "expo[abc]", "",
            "ExponentPushToken[\(String(repeating: "a", count: 600))]",
        ] {
            #expect(PushWire.expoToken(bad) == nil, "\(bad.prefix(30))")
        }
        #expect(PushWire.expoToken(.number(1)) == nil)
        #expect(PushWire.tokenId(" push_1 ") == "push_1")
        #expect(PushWire.tokenId("   ") == nil)
        #expect(PushWire.tokenId(String(repeating: "x", count: 129)) == nil)
        #expect(
            PushWire.preferencePatch(["daily_brief": .bool(true), "x": .string("y"), "last_sent": .object([:])]) == [
                "daily_brief": .bool(true)
            ])
        #expect(PushWire.preferencePatch(["last_lat": .string("1")]) == nil)
        #expect(PushWire.isHeartbeat(["last_lat": .number(1), "last_lng": .number(2)]))
        #expect(!PushWire.isHeartbeat(["last_lat": .number(1)]))
        #expect(PushConfiguration.gate(isDevelopment: false, securityEnabled: true, accessToken: "t").0)
        #expect(!PushConfiguration.gate(isDevelopment: false, securityEnabled: true, accessToken: "").0)
        #expect(!PushConfiguration.gate(isDevelopment: false, securityEnabled: false, accessToken: "t").0)
        #expect(PushConfiguration.gate(isDevelopment: true, securityEnabled: false, accessToken: nil).0)
        // Dev without a token (a laptop's stack) never asks Expo for receipts; with one, or in production, it does.
        #expect(!PushConfiguration(Environment(["MAPVEST_ENV": "dev"])).pollsReceipts)
        #expect(PushConfiguration(Environment(["MAPVEST_ENV": "dev", "EXPO_ACCESS_TOKEN": "t"])).pollsReceipts)
        #expect(
            PushConfiguration(
                Environment(["EXPO_PUSH_SECURITY_ENABLED": "1", "EXPO_ACCESS_TOKEN": "t"])
            ).pollsReceipts)
        // Production never runs with a lease under 90 s; dev (tests) may.
        #expect(PushConfiguration(Environment(["PUSH_LEASE_MS": "1000"])).lease == .seconds(90))
        #expect(PushConfiguration(Environment(["PUSH_LEASE_MS": "1000", "MAPVEST_ENV": "dev"])).lease == .seconds(1))
        #expect(PushConfiguration(Environment(["PUSH_MAX_CONCURRENT_HANDOFFS": "100"])).maxConcurrentHandoffs == 32)
        #expect(PushConfiguration(Environment([:])).maxConcurrentHandoffs == 4)
        #expect(!PushConfiguration(Environment([:])).dispatchEnabled)  // unset MAPVEST_ENV = production, gate closed
    }
}
