import Contracts
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The rivalries routes through the whole system (docs/COMPATIBILITY.md#rivalries): the rival from the
    /// comparables pipeline (loopback Exa and OpenRouter) when none is sent, the original's errors, picks and deletes
    /// scoped to their owner.
    @Suite struct RivalryTests {
        static func send(
            _ gateway: GatewayProcess, _ token: String, _ method: String, _ path: String, json: String? = nil
        ) async throws -> HTTPClientResponse {
            try await SystemClient.send(
                gateway, method, path, json: json, headers: [("Authorization", "Bearer \(token)")])
        }

        static func list(_ response: HTTPClientResponse) throws -> RivalriesResponse {
            try JSONDecoder().decode(RivalriesResponse.self, from: Data(response.body))
        }

        @Test func createPickDeleteAndOwnership() async throws {
            let openRouter = try IdentifyPipelineTests.openRouter(visionAnswer: nil)
            let exa = try IdentifyPipelineTests.exa()
            let identify = try await ServiceProcess.start(
                "Identify",
                extra: [
                    "OPENROUTER_API_KEY": "test-key", "OPENROUTER_BASE_URL": openRouter.baseURL,
                    "EXA_API_KEY": "test-key", "EXA_BASE_URL": exa.baseURL,
                ])
            let gateway = try await GatewayProcess.start(instance: "test-rivalries-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            #expect(try await SystemClient.send(gateway, "GET", "/v1/rivalries").status == 401)
            let (owner, _) = try await SystemClient.signIn(gateway)
            let (other, _) = try await SystemClient.signIn(gateway)
            try await SystemClient.waitForIdentify(gateway, auth: [("Authorization", "Bearer \(owner)")])
            let empty = try await Self.send(gateway, owner, "GET", "/v1/rivalries")
            #expect(empty.status == 200 && SystemClient.text(empty) == #"{"rivalries":[],"count":0}"#)

            // The original's 400s, 409 and 422.
            let errors: [(String, Int, String)] = [
                (#"{"rivalTicker":"AMD"}"#, 400, "ticker required"),
                (#"{"ticker":"TOOLONG"}"#, 400, "ticker is not a plausible listed symbol"),
                (#"{"ticker":"NVDA","rivalTicker":"THE"}"#, 400, "rivalTicker is not a plausible listed symbol"),
                (#"{"ticker":"nvda","rivalTicker":" NVDA "}"#, 400, "a ticker cannot be its own rival"),
            ]
            for (body, status, message) in errors {
                let response = try await Self.send(gateway, owner, "POST", "/v1/rivalries", json: body)
                #expect(response.status == status && SystemClient.errorMessage(response) == message, "\(body)")
            }

            // No rival sent: the comparables pipeline names SBUX for a coffee ticker.
            let created = try await Self.send(gateway, owner, "POST", "/v1/rivalries", json: #"{"ticker":" bros "}"#)
            #expect(created.status == 201, "\(SystemClient.text(created))")
            let first = try #require(try Self.list(created).rivalries.first)
            #expect(first.ticker == "BROS" && first.rivalTicker == "SBUX" && first.currentPick == nil)
            #expect(first.wins == 0 && first.losses == 0 && first.draws == 0)
            #expect(first.weekStart == RivalryTests.monday(Date()))
            #expect(!SystemClient.text(created).contains("currentPick"))
            let duplicate = try await Self.send(
                gateway, owner, "POST", "/v1/rivalries", json: #"{"ticker":"BROS","rivalTicker":"sbux"}"#)
            #expect(duplicate.status == 409 && SystemClient.errorMessage(duplicate) == "rivalry already exists")
            #expect((SystemClient.json(duplicate)["rivalryId"] as? String) == first.id)
            // The comparables pipeline offers only the ticker itself: refused, never a guessed opponent.
            let alone = try await Self.send(gateway, owner, "POST", "/v1/rivalries", json: #"{"ticker":"SBUX"}"#)
            #expect(alone.status == 422)
            #expect(SystemClient.errorMessage(alone) == "no plausible comparable found — pass rivalTicker explicitly")

            // Newest first; a pick registers, shows, and clears.
            let second = try await Self.send(
                gateway, owner, "POST", "/v1/rivalries", json: #"{"ticker":"NVDA","rivalTicker":"AMD"}"#)
            #expect(try Self.list(second).rivalries.map(\.ticker) == ["NVDA", "BROS"])
            let picked = try await Self.send(
                gateway, owner, "POST", "/v1/rivalries/\(first.id)/pick", json: #"{"pick":"rival"}"#)
            #expect(picked.status == 200)
            #expect(try Self.list(picked).rivalries.first { $0.id == first.id }?.currentPick == .rival)
            let badPick = try await Self.send(
                gateway, owner, "POST", "/v1/rivalries/\(first.id)/pick", json: #"{"pick":"both"}"#)
            #expect(badPick.status == 400)
            let cleared = try await Self.send(
                gateway, owner, "POST", "/v1/rivalries/\(first.id)/pick", json: #"{"pick":null}"#)
            #expect(try Self.list(cleared).rivalries.allSatisfy { $0.currentPick == nil })

            // Another user's rivalry is no rivalry: 404 to pick or delete, and it survives.
            for (method, path, body) in [
                ("POST", "/v1/rivalries/\(first.id)/pick", #"{"pick":"ticker"}"#),
                ("DELETE", "/v1/rivalries/\(first.id)", nil), ("DELETE", "/v1/rivalries/not-a-uuid", nil),
                ("POST", "/v1/rivalries/\(UUID().uuidString)/pick", #"{"pick":null}"#),
            ] {
                let response = try await Self.send(gateway, other, method, path, json: body)
                #expect(response.status == 404 && SystemClient.errorMessage(response) == "rivalry not found", "\(path)")
            }
            #expect(try Self.list(try await Self.send(gateway, other, "GET", "/v1/rivalries")).count == 0)
            #expect(try Self.list(try await Self.send(gateway, owner, "GET", "/v1/rivalries")).count == 2)

            let deleted = try await Self.send(gateway, owner, "DELETE", "/v1/rivalries/\(first.id)")
            #expect(deleted.status == 204 && deleted.body.isEmpty)
            #expect(try await Self.send(gateway, owner, "DELETE", "/v1/rivalries/\(first.id)").status == 404)

            // At most ten per user.
            for rival in ["AAPL", "MSFT", "GOOG", "META", "AMZN", "TSLA", "ORCL", "IBM", "CSCO"] {
                let response = try await Self.send(
                    gateway, other, "POST", "/v1/rivalries", json: #"{"ticker":"NVDA","rivalTicker":"\#(rival)"}"#)
                #expect(response.status == 201)
            }
            let tenth = try await Self.send(
                gateway, other, "POST", "/v1/rivalries", json: #"{"ticker":"AMD","rivalTicker":"INTC"}"#)
            #expect(try Self.list(tenth).count == 10)
            let eleventh = try await Self.send(
                gateway, other, "POST", "/v1/rivalries", json: #"{"ticker":"AMD","rivalTicker":"QCOM"}"#)
            #expect(eleventh.status == 429 && SystemClient.errorMessage(eleventh) == "at most 10 rivalries per user")
        }

        /// The Monday (UTC) of the week holding `date`, computed apart from the rules under test.
        static func monday(_ date: Date) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let weekday = calendar.component(.weekday, from: date)  // 1 = Sunday
            let monday = calendar.date(byAdding: .day, value: -((weekday + 5) % 7), to: date) ?? date
            let parts = calendar.dateComponents([.year, .month, .day], from: monday)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
    }
}
