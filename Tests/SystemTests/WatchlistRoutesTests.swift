import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Every watchlist route (docs/COMPATIBILITY.md#watchlists) through a real Gateway and Briefs: bodies, statuses,
    /// orderings, owner scoping, and concurrent promotions leaving exactly one default.
    @Suite struct WatchlistRoutesTests {
        @Test func listsEntriesAndDefaultsEndToEnd() async throws {
            let knobs = BriefsFakes.Knobs()
            let (massive, openRouter, jev, env) = try BriefsFakes.upstreams(knobs)
            let session = try await BriefsRouteSession.start(instance: "test-watch", env: env)
            defer { session.stop() }
            let (gateway, auth, other) = (session.gateway, session.auth, session.other)

            // Bearer only.
            #expect(try await SystemClient.send(gateway, "GET", "/v1/watchlist").status == 401)
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"AAPL"}"#).status
                    == 401)

            // The default list is created lazily.
            var lists = try JSONDecoder().decode(
                WatchListsResponse.self, from: Data(try await session.send("GET", "/v1/watchlist/lists").body)
            ).lists
            #expect(lists.count == 1 && lists[0].name == "Default" && lists[0].isDefault && lists[0].tickerCount == 0)
            let defaultId = lists[0].id
            #expect(defaultId.hasPrefix("wl_"))

            // Create and rename.
            for body in ["{}", #"{"name":"   "}"#, "not json", #"{"name":5}"#] {
                session.expectError(try await session.send("POST", "/v1/watchlist/lists", body), 400, "name required")
            }
            // NUL is refused at the edge for every JSON body, before the route sees it.
            session.expectError(
                try await session.send("POST", "/v1/watchlist/lists", #"{"name":"a\u0000b"}"#), 400,
                "request body must not contain NUL characters")
            session.expectError(
                try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"AAPL","name":"x\u0000"}"#), 400,
                "request body must not contain NUL characters")
            let created = try await session.send("POST", "/v1/watchlist/lists", #"{"name":"  Tech names  "}"#)
            let tech = try JSONDecoder().decode(WatchListResponse.self, from: Data(created.body)).list
            #expect(created.status == 200 && tech.name == "Tech names" && !tech.isDefault && tech.tickerCount == 0)
            #expect(SystemClient.text(created).contains("\"tickerCount\":0"))
            let long = try await session.send(
                "POST", "/v1/watchlist/lists", "{\"name\":\"\(String(repeating: "x", count: 80))\"}")
            #expect(try JSONDecoder().decode(WatchListResponse.self, from: Data(long.body)).list.name.count == 60)
            let renamed = try await session.send("PATCH", "/v1/watchlist/lists/\(tech.id)", #"{"name":"Tech"}"#)
            #expect(try JSONDecoder().decode(WatchListResponse.self, from: Data(renamed.body)).list.name == "Tech")
            #expect(!SystemClient.text(renamed).contains("tickerCount"))
            session.expectError(
                try await session.send("PATCH", "/v1/watchlist/lists/\(tech.id)", "{}"), 400, "name required")
            session.expectError(
                try await session.send("PATCH", "/v1/watchlist/lists/wl_missing", #"{"name":"x"}"#), 404,
                "list not found")
            session.expectError(
                try await session.send("PATCH", "/v1/watchlist/lists/\(tech.id)", #"{"name":"x"}"#, as: other), 404,
                "list not found")

            // Add: quote-confirmed, unresolved, into a named list, upsert keeping omitted fields.
            for body in ["{}", #"{"ticker":"  "}"#, "[]"] {
                session.expectError(try await session.send("POST", "/v1/watchlist/add", body), 400, "ticker required")
            }
            session.expectError(
                try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"AAPL","source":"telepathy"}"#), 400,
                "invalid source")
            session.expectError(
                try await session.send(
                    "POST", "/v1/watchlist/add", #"{"ticker":"AAPL","listId":"\#(tech.id)"}"#, as: other),
                404, "list not found")
            let added = try JSONDecoder().decode(
                WatchAddResponse.self,
                from: Data(
                    try await session.send("POST", "/v1/watchlist/add", #"{"ticker":" aapl ","name":"Apple"}"#).body))
            #expect(
                added.entry.ticker == "AAPL" && !added.unresolved && added.entry.source == .manual
                    && added.entry.listId == defaultId)
            try await Task.sleep(for: .milliseconds(20))
            let unknown = try JSONDecoder().decode(
                WatchAddResponse.self,
                from: Data(
                    try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"NOPEX","source":"camera"}"#).body))
            #expect(unknown.unresolved && unknown.entry.source == .camera)
            let again = try JSONDecoder().decode(
                WatchAddResponse.self,
                from: Data(
                    try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"AAPL","sector":"Technology"}"#)
                        .body))
            #expect(again.entry.name == "Apple" && again.entry.source == .manual && again.entry.sector == "Technology")
            #expect(again.entry.createdAt == added.entry.createdAt && again.entry.listId == defaultId)
            _ = try await session.send(
                "POST", "/v1/watchlist/add", #"{"ticker":"AMZN","listId":"\#(tech.id)","source":"detail"}"#)

            // Entries: default when listId is omitted, newest first; another user's list is 404.
            let items = try JSONDecoder().decode(
                WatchEntriesResponse.self, from: Data(try await session.send("GET", "/v1/watchlist").body)
            ).items
            #expect(items.map(\.ticker) == ["NOPEX", "AAPL"])
            let techItems = try JSONDecoder().decode(
                WatchEntriesResponse.self,
                from: Data(try await session.send("GET", "/v1/watchlist?listId=\(tech.id)").body)
            ).items
            #expect(techItems.map(\.ticker) == ["AMZN"])
            session.expectError(
                try await session.send("GET", "/v1/watchlist?listId=\(tech.id)", as: other), 404, "list not found")
            #expect(
                try JSONDecoder().decode(
                    WatchEntriesResponse.self,
                    from: Data(try await session.send("GET", "/v1/watchlist", as: other).body)
                ).items.isEmpty)

            // Summary: Uncategorized for a missing sector, most first.
            let summary = try JSONDecoder().decode(
                WatchListSummary.self, from: Data(try await session.send("GET", "/v1/watchlist/list-summary").body))
            #expect(summary.tickerCount == 2 && summary.backtestReady)
            #expect(
                Set(summary.sectors.map(\.sector)) == ["Technology", "Uncategorized"]
                    && summary.sectors.allSatisfy { $0.pct == 0.5 })
            let emptySummary = try JSONDecoder().decode(
                WatchListSummary.self,
                from: Data(try await session.send("GET", "/v1/watchlist/list-summary", as: other).body))
            #expect(emptySummary.tickerCount == 0 && !emptySummary.backtestReady && emptySummary.sectors.isEmpty)

            // Move.
            for body in ["{}", #"{"ticker":"AAPL"}"#, #"{"toListId":"\#(tech.id)"}"#] {
                session.expectError(
                    try await session.send("POST", "/v1/watchlist/move", body), 400, "ticker + toListId required")
            }
            session.expectError(
                try await session.send("POST", "/v1/watchlist/move", #"{"ticker":"ZZZZ","toListId":"\#(tech.id)"}"#),
                404,
                "ticker not in watchlist")
            session.expectError(
                try await session.send(
                    "POST", "/v1/watchlist/move",
                    #"{"ticker":"AAPL","fromListId":"\#(tech.id)","toListId":"\#(tech.id)"}"#),
                404, "ticker not in watchlist")
            session.expectError(
                try await session.send("POST", "/v1/watchlist/move", #"{"ticker":"AAPL","toListId":"wl_nobody"}"#), 404,
                "list not found")
            let moved = try await session.send(
                "POST", "/v1/watchlist/move",
                #"{"ticker":"aapl","fromListId":"\#(defaultId)","toListId":"\#(tech.id)"}"#)
            #expect(moved.status == 204 && moved.body.isEmpty)
            let techAfter = try JSONDecoder().decode(
                WatchEntriesResponse.self,
                from: Data(try await session.send("GET", "/v1/watchlist?listId=\(tech.id)").body)
            ).items
            #expect(Set(techAfter.map(\.ticker)) == ["AAPL", "AMZN"])

            // Memo.
            session.expectError(
                try await session.send("POST", "/v1/watchlist/AAPL/memo", #"{"memo":"too short"}"#), 400,
                "memo required (min 20 chars)")
            session.expectError(
                try await session.send("POST", "/v1/watchlist/ZZZZ/memo", #"{"memo":"a memo that is long enough"}"#),
                404,
                "ticker not in watchlist")
            let memo = try JSONDecoder().decode(
                WatchEntryResponse.self,
                from: Data(
                    try await session.send(
                        "POST", "/v1/watchlist/aapl/memo",
                        #"{"memo":"a memo that is long enough","provider":"research"}"#
                    ).body))
            #expect(
                memo.entry.memo == "a memo that is long enough" && memo.entry.memoProvider == "research"
                    && memo.entry.listId == tech.id)

            // Delete an entry.
            let removed = try await session.send("DELETE", "/v1/watchlist/nopex")
            #expect(
                removed.status == 200 && SystemClient.json(removed)["ok"] as? Bool == true
                    && SystemClient.json(removed)["removed"] as? Bool == true)
            #expect(
                SystemClient.json(try await session.send("DELETE", "/v1/watchlist/NOPEX"))["removed"] as? Bool == false)

            // Promotions: 20 at once over four lists → exactly one default; another user's list is 404.
            var ids = [defaultId, tech.id]
            for name in ["Energy", "Retail"] {
                ids.append(
                    try JSONDecoder().decode(
                        WatchListResponse.self,
                        from: Data(try await session.send("POST", "/v1/watchlist/lists", #"{"name":"\#(name)"}"#).body)
                    ).list.id)
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<20 {
                    let id = ids[i % ids.count]
                    group.addTask {
                        try await SystemClient.send(gateway, "POST", "/v1/watchlist/lists/\(id)/default", headers: auth)
                            .status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 20 && statuses.allSatisfy { $0 == 200 })
            lists = try JSONDecoder().decode(
                WatchListsResponse.self, from: Data(try await session.send("GET", "/v1/watchlist/lists").body)
            ).lists
            #expect(lists.count == 5 && lists.filter(\.isDefault).count == 1 && lists[0].isDefault)
            session.expectError(
                try await session.send("POST", "/v1/watchlist/lists/\(tech.id)/default", as: other), 404,
                "list not found")

            let promoted = try await session.send("POST", "/v1/watchlist/lists/\(tech.id)/default")
            let promotedList = try JSONDecoder().decode(WatchListResponse.self, from: Data(promoted.body)).list
            #expect(promotedList.isDefault && promotedList.id == tech.id)
            // Default consumers follow at once: the omitted listId is now Tech.
            let followed = try JSONDecoder().decode(
                WatchEntriesResponse.self, from: Data(try await session.send("GET", "/v1/watchlist").body)
            ).items
            #expect(Set(followed.map(\.ticker)) == ["AAPL", "AMZN"])
            lists = try JSONDecoder().decode(
                WatchListsResponse.self, from: Data(try await session.send("GET", "/v1/watchlist/lists").body)
            ).lists
            #expect(lists.first?.id == tech.id && lists.first?.tickerCount == 2)

            // Deleting lists: the default is refused, another removes its entries.
            session.expectError(
                try await session.send("DELETE", "/v1/watchlist/lists/\(tech.id)"), 400, "cannot delete default list")
            session.expectError(
                try await session.send("DELETE", "/v1/watchlist/lists/\(defaultId)", as: other), 404, "list not found")
            _ = try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"XOM","listId":"\#(defaultId)"}"#)
            let deleted = try await session.send("DELETE", "/v1/watchlist/lists/\(defaultId)")
            #expect(deleted.status == 204)
            session.expectError(
                try await session.send("DELETE", "/v1/watchlist/lists/\(defaultId)"), 404, "list not found")
            session.expectError(
                try await session.send("GET", "/v1/watchlist?listId=\(defaultId)"), 404, "list not found")
            let readd = try JSONDecoder().decode(
                WatchAddResponse.self,
                from: Data(try await session.send("POST", "/v1/watchlist/add", #"{"ticker":"XOM"}"#).body))
            #expect(readd.entry.listId == tech.id)

            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }
    }
}
