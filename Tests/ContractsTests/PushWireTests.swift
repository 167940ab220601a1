import Contracts
import Testing

/// Expo tokens and registration ids are trimmed of ASCII whitespace, CR LF pairs included.
@Suite("Contracts: push wire input")
struct PushWireTests {
    @Test(arguments: [
        "ExponentPushToken[abc]", " \tExponentPushToken[abc]\r\n", "\r\n\u{0B}ExponentPushToken[abc]\r\n\u{0C}",
    ])
    func anExpoTokenIsReadTrimmed(_ raw: String) {
        #expect(PushWire.expoToken(raw) == "ExponentPushToken[abc]")
    }

    @Test func whitespaceAloneIsNoTokenOrId() {
        #expect(PushWire.expoToken("\r\n") == nil)
        #expect(PushWire.tokenId("\r\n\u{0B}") == nil)
        #expect(PushWire.tokenId("\r\npush_1\r\n") == "push_1")
        #expect(PushWire.expoToken("ExponentPushToken[]") == nil)
    }
}
