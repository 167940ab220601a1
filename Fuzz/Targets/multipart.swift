import Contracts
import HTTPServer

@testable import GatewayKit

/// Fuzz target `multipart`: a `Content-Type` line, then a multipart body, through the multipart parser and the identify
/// form that reads it.
func fuzzMultipart(_ bytes: [UInt8]) {
    let newline = bytes.firstIndex(of: 10) ?? bytes.endIndex
    let contentType = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
    if let boundary = Multipart.boundary(fromContentType: contentType) {
        _ = try? Multipart.parse(body, boundary: boundary)
    }
    _ = try? Multipart.parse(body, boundary: "b")
    let request = HTTPRequest(
        head: HTTPRequestHead(method: "POST", path: "/v1/identify", headers: ["Content-Type": contentType]), body: body)
    _ = IdentifyForm.parse(request)
}
