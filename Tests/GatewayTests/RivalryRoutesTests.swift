import Contracts
import Foundation
import HTTPServer
import Testing

@testable import GatewayKit

/// The rivalries routes' gateway half: the bodies read as the original reads them, before anything reaches Identify.
struct RivalryRoutesTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func createTakesATickerStringAndAnOptionalRivalString() throws {
        let full = try RivalryRoutes.create(userId: "u", body: Self.bytes(#"{"ticker":" nvda","rivalTicker":"amd"}"#))
            .get()
        #expect(full == CreateRivalryCommand(userId: "u", ticker: " nvda", rivalTicker: "amd"))
        let bare = try RivalryRoutes.create(userId: "u", body: Self.bytes(#"{"ticker":"NVDA"}"#)).get()
        #expect(bare.rivalTicker == nil)
        for body in [
            "", "not json", "[]", "{}", #"{"ticker":5}"#, #"{"ticker":null}"#, #"{"ticker":"A","rivalTicker":7}"#,
            #"{"ticker":"A","rivalTicker":null}"#, #"{"ticker":"A",}"#,
        ] {
            guard case .failure(let response) = RivalryRoutes.create(userId: "u", body: Self.bytes(body)) else {
                Issue.record("accepted \(body)")
                continue
            }
            #expect(response.status == 400)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"ticker required"}"#)
        }
    }

    @Test func aPickIsASideOrNullAndNothingElse() throws {
        #expect(
            try RivalryRoutes.pick(userId: "u", id: "r", body: Self.bytes(#"{"pick":"rival"}"#)).get().pick == .rival)
        #expect(
            try RivalryRoutes.pick(userId: "u", id: "r", body: Self.bytes(#"{"pick":"ticker"}"#)).get().pick == .ticker)
        let cleared = try RivalryRoutes.pick(userId: "u", id: "r", body: Self.bytes(#"{"pick":null}"#)).get()
        #expect(cleared == RivalryPickCommand(userId: "u", rivalryId: "r", pick: nil))
        for body in [
            "", "{}", #"{"pick":"both"}"#, #"{"pick":1}"#, #"{"pick":"TICKER"}"#, "null", #"{"pick":"rival",}"#,
        ] {
            guard case .failure(let response) = RivalryRoutes.pick(userId: "u", id: "r", body: Self.bytes(body)) else {
                Issue.record("accepted \(body)")
                continue
            }
            #expect(response.status == 400)
            #expect(
                String(decoding: response.body, as: UTF8.self)
                    == #"{"error":"pick must be \"ticker\", \"rival\", or null"}"#)
        }
    }
}
