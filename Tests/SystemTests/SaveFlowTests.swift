import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Save from Camera, then identify: the verdict of a signed-in caller says whether the ticker is on their default
    /// list (read from Briefs by command), and follows a promotion at once.
    @Suite struct SaveFlowTests {
        static func watchlisted(_ gateway: GatewayProcess, _ auth: [(String, String)]) async throws -> Bool? {
            let identified = try await SystemClient.identify(gateway, hint: "Starbucks", device: nil, headers: auth)
            let body = try JSONDecoder().decode(IdentifyResponse.self, from: Data(identified.body))
            #expect(identified.status == 200 && body.investables.first?.brand.ticker?.symbol == "SBUX")
            return body.investables.first?.verdict?.watchlisted
        }

        @Test func savedTickerIsWatchlistedInTheVerdict() async throws {
            let knobs = BriefsFakes.Knobs()
            let (massive, openRouter, jev, upstreamEnv) = try BriefsFakes.upstreams(knobs)
            var env = upstreamEnv
            env["OPENROUTER_API_KEY"] = ""
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let identify = try await ServiceProcess.start("Identify", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-save-\(UInt16.random(in: 0...9999))")
            defer {
                [briefs, identify].forEach { $0.kill() }
                gateway.process.kill()
            }
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            try await SystemClient.waitForIdentify(gateway, auth: auth)

            // Not saved yet: the verdict says so (Identify warmed its reply path at start, so the first read is in time).
            #expect(try await Self.watchlisted(gateway, auth) == false)

            // Save from Camera (retried, as after a magic-link sign-in): one entry in the default list.
            for _ in 0..<2 {
                let saved = try await SystemClient.send(
                    gateway, "POST", "/v1/watchlist/add",
                    json: #"{"ticker":"SBUX","name":"Starbucks","source":"camera"}"#, headers: auth)
                let added = try JSONDecoder().decode(WatchAddResponse.self, from: Data(saved.body))
                #expect(saved.status == 200 && !added.unresolved && added.entry.source == .camera)
            }
            let items = try JSONDecoder().decode(
                WatchEntriesResponse.self,
                from: Data(try await SystemClient.send(gateway, "GET", "/v1/watchlist", headers: auth).body)
            ).items
            #expect(items.map(\.ticker) == ["SBUX"])
            #expect(try await Self.watchlisted(gateway, auth) == true)

            // Promoting an empty list repoints the verdict at once.
            let list = try JSONDecoder().decode(
                WatchListResponse.self,
                from: Data(
                    try await SystemClient.send(
                        gateway, "POST", "/v1/watchlist/lists", json: #"{"name":"Fresh"}"#, headers: auth
                    ).body)
            ).list
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/watchlist/lists/\(list.id)/default", headers: auth)
                    .status == 200)
            #expect(try await Self.watchlisted(gateway, auth) == false)

            // Anonymous callers never get the key.
            let anonymous = try await SystemClient.identify(gateway, hint: "Starbucks")
            #expect(!SystemClient.text(anonymous).contains("watchlisted"))

            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }
    }
}
