import Contracts
import Foundation
import HTTPServer
import Testing

@testable import GatewayKit

/// The Prism/Situate chat body: what becomes the Rating command, and what is refused with which words.
@Suite("Gateway routes: packet chat input")
struct PacketChatInputTests {
    static func parse(_ body: String, _ engine: ResearchEngine = .prism) -> Result<PacketChatCommand, HTTPResponse> {
        PacketChatInput.command(Data(body.utf8), engine: engine)
    }

    @Test func acceptsTheDocumentedBody() throws {
        let long = String(repeating: "é", count: 4000)
        let command = try Self.parse(
            #"{"ticker":" x:btcusd ","message":"\#(long)","conversation_id":"c","history":[{"role":"assistant","content":"Hi"}],"other":[]}"#,
            .situate
        ).get()
        #expect(command.ticker == "X:BTCUSD" && command.engine == .situate && command.message.count == 4000)
        #expect(command.conversationId == "c" && command.history == [.init(role: "assistant", content: "Hi")])
    }

    @Test(arguments: [
        #"{"ticker":"MCD"}"#, #"{"message":"Why?"}"#, #"{"ticker":"","message":"Why?"}"#,
        #"{"ticker":"ABCDEFGHIJKLMNOPQ","message":"Why?"}"#, #"{"ticker":"MCD","message":1}"#,
        #"{"ticker":"MCD","message":"Why?","conversationId":7}"#, #"{"ticker":"MCD","message":"Why?","history":{}}"#,
        #"{"ticker":"MCD","message":"Why?","history":[{"role":"user"}]}"#, "null", "",
    ])
    func refusesABrokenBody(body: String) {
        guard case .failure(let response) = Self.parse(body) else {
            Issue.record("accepted \(body)")
            return
        }
        #expect(response.status == 400)
        #expect(
            String(decoding: response.body, as: UTF8.self).contains("ticker and message (1–4000 chars) required"))
    }

    @Test func refusesTooMuch() {
        let turns = Array(repeating: #"{"role":"user","content":"x"}"#, count: 51).joined(separator: ",")
        for body in [
            #"{"ticker":"MCD","message":"\#(String(repeating: "a", count: 4001))"}"#,
            #"{"ticker":"MCD","message":"Why?","history":[\#(turns)]}"#,
        ] {
            guard case .failure(let response) = Self.parse(body) else {
                Issue.record("accepted a body over the limits")
                continue
            }
            #expect(response.status == 400)
        }
    }

    @Test func namesAnInvalidTicker() {
        guard case .failure(let response) = Self.parse(#"{"ticker":"1ABC","message":"Why?"}"#) else {
            Issue.record("accepted 1ABC")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""error":"invalid ticker""#))
    }
}
