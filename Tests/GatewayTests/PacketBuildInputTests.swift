import Contracts
import HTTPServer
import ResearchCore
import Testing

@testable import GatewayKit

/// The Prism/Situate build body: flags must be booleans, both date spellings are checked, other keys are ignored.
@Suite("Gateway routes: packet build input")
struct PacketBuildInputTests {
    static func parse(_ body: String, _ kind: PacketKind) -> Result<PacketBuildCommand, HTTPResponse> {
        PacketInput.build(
            HTTPRequest(head: HTTPRequestHead(method: "POST", path: "/v1/\(kind.rawValue)"), body: Array(body.utf8)),
            kind: kind, owner: ResearchOwner(userId: nil, deviceId: "d"))
    }

    static func error(_ result: Result<PacketBuildCommand, HTTPResponse>) -> String? {
        guard case .failure(let response) = result else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func acceptsBothSpellings() throws {
        let prism = try Self.parse(#"{"ticker":"mcd","force":true,"include_memo":false,"asOf":"x","y":null}"#, .prism)
            .get()
        #expect(prism.ticker == "MCD" && prism.force && prism.includeMemo == false && prism.asOf == nil)
        let situate = try Self.parse(#"{"ticker":"KO","as_of":"2026-12-01","asOf":"2026-12-02"}"#, .situate).get()
        #expect(situate.asOf == "2026-12-02" && situate.force == false && situate.includeMemo == nil)
    }

    @Test(arguments: [
        #"{"ticker":"MCD","include_memo":null}"#, #"{"ticker":"MCD","force":"yes"}"#, #"{"ticker":""}"#,
        #"{"ticker":7}"#, "[]",
    ])
    func refusesASchemaFailure(body: String) {
        #expect(Self.error(Self.parse(body, .prism))?.contains("ticker required") == true)
    }

    @Test func refusesABadDateInEitherSpelling() {
        for body in [#"{"ticker":"KO","asOf":"2026-12-01","as_of":"soon"}"#, #"{"ticker":"KO","asOf":12345}"#] {
            #expect(Self.error(Self.parse(body, .situate))?.contains("asOf must be a date") == true, "\(body)")
        }
        #expect(Self.error(Self.parse(#"{"ticker":"1KO"}"#, .situate))?.contains("invalid ticker") == true)
    }
}
