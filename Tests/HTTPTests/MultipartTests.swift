import Foundation
import HTTPServer
import Testing

@Suite("Multipart")
struct MultipartTests {
    static let boundary = "----MapvestBoundary7MA4YWxkTrZu0gW"

    static func body(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    @Test func boundaryFromContentType() {
        #expect(Multipart.boundary(fromContentType: "multipart/form-data; boundary=abc123") == "abc123")
        #expect(Multipart.boundary(fromContentType: #"Multipart/Form-Data;charset=utf-8; BOUNDARY="a b;c""#) == "a b;c")
        #expect(Multipart.boundary(fromContentType: "multipart/form-data") == nil)
        #expect(Multipart.boundary(fromContentType: "multipart/form-data; boundary=") == nil)
        #expect(Multipart.boundary(fromContentType: "application/json; boundary=abc") == nil)
        #expect(
            Multipart.boundary(fromContentType: "multipart/form-data; boundary=\(String(repeating: "x", count: 71))")
                == nil)
    }

    @Test func parsesFileAndTextParts() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF, 0xD9]  // holds CRLF "--"
        var body = Self.body(
            """
            preamble to ignore
            --\(Self.boundary)
            Content-Disposition: form-data; name="hint"

            Starbucks on 5th
            --\(Self.boundary)
            Content-Disposition: form-data; name="image"; filename="photo \\"1\\".jpg"
            Content-Type: image/jpeg


            """)
        body += jpeg
        body += Self.body("\n--\(Self.boundary)--\nepilogue\n")
        let parts = try Multipart.parse(body, boundary: Self.boundary)
        #expect(parts.count == 2)
        #expect(parts[0].name == "hint")
        #expect(parts[0].filename == nil)
        #expect(parts[0].contentType == nil)
        #expect(parts[0].data == Array("Starbucks on 5th".utf8))
        #expect(parts[1].name == "image")
        #expect(parts[1].filename == #"photo "1".jpg"#)
        #expect(parts[1].contentType == "image/jpeg")
        #expect(parts[1].data == jpeg)
    }

    @Test func partWithoutContentTypeAndEmptyValue() throws {
        let body = Self.body(
            """
            --\(Self.boundary)
            Content-Disposition: form-data; name=image; filename=a.bin

            raw
            --\(Self.boundary)
            content-disposition: form-data; name="empty"


            --\(Self.boundary)--
            """)
        let parts = try Multipart.parse(body, boundary: Self.boundary)
        #expect(parts.count == 2)
        #expect(parts[0].name == "image" && parts[0].filename == "a.bin" && parts[0].contentType == nil)
        #expect(parts[0].data == Array("raw".utf8))
        #expect(parts[1].name == "empty" && parts[1].data.isEmpty)
    }

    @Test(arguments: [
        // missing final boundary
        "--B\nContent-Disposition: form-data; name=\"a\"\n\nvalue\n",
        // final delimiter never closed and no CRLF before it
        "--B\nContent-Disposition: form-data; name=\"a\"\n\nvalue--B--",
        // garbage
        "this is not multipart at all",
        // wrong boundary
        "--C\nContent-Disposition: form-data; name=\"a\"\n\nvalue\n--C--\n",
        // no Content-Disposition
        "--B\nContent-Type: text/plain\n\nvalue\n--B--\n",
        // not form-data / no name
        "--B\nContent-Disposition: attachment; filename=\"x\"\n\nvalue\n--B--\n",
        // header line without a colon
        "--B\nContent-Disposition form-data\n\nvalue\n--B--\n",
        // headers never end
        "--B\nContent-Disposition: form-data; name=\"a\"\nvalue\n--B--\n",
        // junk after the delimiter
        "--Bjunk\nContent-Disposition: form-data; name=\"a\"\n\nvalue\n--B--\n",
        "",
    ])
    func malformedBodiesThrow(_ text: String) {
        #expect(throws: MultipartError.self) { try Multipart.parse(Self.body(text), boundary: "B") }
    }

    @Test func largeBinaryPartWithNearDelimiters() throws {
        // 64 KiB of every byte value, cut by CRs, CRLF "--" and the delimiter with its last character wrong.
        var photo: [UInt8] = []
        let near = Array("\r\n--\(Self.boundary.dropLast())X".utf8)
        for i in 0..<1024 { photo += (0..<64).map { UInt8(truncatingIfNeeded: $0 * 7 + i) } + (i % 3 == 0 ? near : []) }
        var body = Self.body("--\(Self.boundary)\nContent-Disposition: form-data; name=\"image\"; filename=p.jpg\n\n")
        body += photo
        body += Self.body(
            "\n--\(Self.boundary)\nContent-Disposition: form-data; name=\"hint\"\n\nx\n--\(Self.boundary)--\n")
        let parts = try Multipart.parse(body, boundary: Self.boundary)
        #expect(parts.map(\.name) == ["image", "hint"])
        #expect(parts[0].data == photo)
        #expect(parts[1].data == Array("x".utf8))
    }

    @Test func partHeadersOverTheLimitThrow() {
        let long = String(repeating: "a", count: 9 << 10)
        let text = "--B\nContent-Disposition: form-data; name=\"a\"\nX-Long: \(long)\n\nv\n--B--\n"
        #expect(throws: MultipartError.self) { try Multipart.parse(Self.body(text), boundary: "B") }
    }

    @Test func tooManyPartsThrow() {
        var text = ""
        for i in 0...Multipart.maxParts { text += "--B\nContent-Disposition: form-data; name=\"p\(i)\"\n\nv\n" }
        text += "--B--\n"
        #expect(throws: MultipartError.self) { try Multipart.parse(Self.body(text), boundary: "B") }
    }
}
