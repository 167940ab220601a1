import Crypto
import Foundation
import Runtime

@testable import GatewayKit

/// Fuzz target `jwt`: session tokens. The input as a raw token (format, algorithm and signature checks), and the
/// input as the claims of a correctly signed token (claims decoding, purpose and expiry checks past the signature).
func fuzzJWT(_ bytes: [UInt8]) {
    let tokens = FuzzTokens.tokens
    let raw = String(decoding: bytes, as: UTF8.self)
    _ = try? tokens.verifySession(raw)
    _ = try? tokens.verifyExpiredSession(raw)
    _ = try? tokens.verifyMagic(raw)
    _ = SessionTokens.bearer(raw)

    let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let input = header + "." + Base64URL.encode(bytes)
    let signed = input + "." + Base64URL.encode(Digest.hmacSHA256(key: FuzzTokens.key, message: Array(input.utf8)))
    if let session = try? tokens.verifySession(signed) { _ = Timestamp.iso8601(session.expiresAt) }
    if let expired = try? tokens.verifyExpiredSession(signed) { _ = Timestamp.iso8601(expired.expiredAt) }
    _ = try? tokens.verifyMagic(signed)
}

enum FuzzTokens {
    static let key = Array("fuzz-signing-key-fuzz-signing-key-0123".utf8)
    static let tokens = SessionTokens(sessions: HS256JWT(key: key), maps: HS256JWT(key: key))
}
