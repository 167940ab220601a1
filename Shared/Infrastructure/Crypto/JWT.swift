import FoundationEssentials

/// HS256 JSON Web Tokens: the only algorithm accepted. Any other `alg` (including `none`) is rejected before the
/// signature is looked at, and the signature is compared in constant time.
public struct HS256JWT: Sendable {
    private let key: [UInt8]

    public init(key: [UInt8]) { self.key = key }

    public enum Failure: Error, Equatable, Sendable {
        case malformed
        case unsupportedAlgorithm
        case badSignature
        case expired
    }

    /// Signs `claims` (a JSON object) with header `{"alg":"HS256","typ":"JWT"}`.
    public func sign<Claims: Encodable>(_ claims: Claims) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(try JSONEncoder().encode(claims)))
        let input = header + "." + payload
        return input + "." + Base64URL.encode(Digest.hmacSHA256(key: key, message: Array(input.utf8)))
    }

    /// Verifies the algorithm and signature, then decodes the claims. `exp` (Unix seconds) is checked against `now`
    /// unless `checkExpiry` is false (used only by the expired-session device recovery route).
    public func verify<Claims: Decodable & ExpiringClaims>(
        _ token: String, as type: Claims.Type, now: Date = Date(), checkExpiry: Bool = true
    ) throws(Failure) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { throw .malformed }
        guard header.alg == "HS256" else { throw .unsupportedAlgorithm }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard Digest.constantTimeEqual(Digest.hmacSHA256(key: key, message: input), signature) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(payloadBytes)) else { throw .malformed }
        if checkExpiry {
            guard let exp = claims.exp, Double(exp) > now.timeIntervalSince1970 else { throw .expired }
        }
        return claims
    }

    private struct Header: Decodable {
        let alg: String
    }
}

/// Claims with an optional `exp` in Unix seconds.
public protocol ExpiringClaims {
    var exp: Int64? { get }
}
