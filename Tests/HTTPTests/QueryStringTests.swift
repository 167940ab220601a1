import HTTPServer
import Testing

@Suite("Percent-decoding (no socket)")
struct QueryStringTests {
    @Test func lenientDecodingKeepsMalformedEscapesAndReadsPlusAsSpaceInQueries() {
        #expect(QueryString.decodedBytes(Array("a%20b+c%zz%4".utf8), plusAsSpace: true) == Array("a b c%zz%4".utf8))
        #expect(QueryString.decodedBytes(Array("a+b%2B".utf8), plusAsSpace: false) == Array("a+b+".utf8))
        #expect(QueryString.decodedBytes(Array("%00%FF".utf8), plusAsSpace: false) == [0, 0xFF])
    }

    @Test func strictDecodingRefusesMalformedEscapesAndInvalidUTF8() {
        #expect(QueryString.strictlyDecoded("caf%C3%A9+x") == "café+x")
        #expect(QueryString.strictlyDecoded("100%") == nil)
        #expect(QueryString.strictlyDecoded("%4") == nil)
        #expect(QueryString.strictlyDecoded("%zz") == nil)
        #expect(QueryString.strictlyDecoded("%FF") == nil)
        #expect(QueryString.strictlyDecoded("") == "")
    }
}
