import Crypto
import Foundation
import Testing

struct SessionClaims: Codable, ExpiringClaims, Equatable {
    var purpose: String
    var sub: String?
    var exp: Int64?
}

struct JWTTests {
    let key = Array("0123456789abcdef0123456789abcdef".utf8)
    var jwt: HS256JWT { HS256JWT(key: key) }
    let future = Int64(Date().timeIntervalSince1970) + 3600

    @Test func signsAndVerifies() throws {
        let token = try jwt.sign(SessionClaims(purpose: "session", sub: "usr_1", exp: future))
        let claims = try jwt.verify(token, as: SessionClaims.self)
        #expect(claims == SessionClaims(purpose: "session", sub: "usr_1", exp: future))
    }

    @Test func rejectsAlgNone() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"purpose":"session","sub":"usr_1","exp":99999999999}"#.utf8))
        #expect(throws: HS256JWT.Failure.unsupportedAlgorithm) {
            try jwt.verify(header + "." + payload + ".", as: SessionClaims.self)
        }
    }

    @Test func rejectsOtherAlgorithmsEvenWithAValidHMAC() throws {
        // Algorithm confusion: an HS512/RS256 header signed with our key is still refused.
        for alg in ["HS512", "RS256", "hs256", "ES256"] {
            let header = Base64URL.encode(Array("{\"alg\":\"\(alg)\",\"typ\":\"JWT\"}".utf8))
            let payload = Base64URL.encode(Array(#"{"purpose":"session","sub":"usr_1","exp":99999999999}"#.utf8))
            let input = header + "." + payload
            let signature = Base64URL.encode(Digest.hmacSHA256(key: key, message: Array(input.utf8)))
            #expect(throws: HS256JWT.Failure.unsupportedAlgorithm) {
                try jwt.verify(input + "." + signature, as: SessionClaims.self)
            }
        }
    }

    @Test func rejectsWrongKeyTamperingAndExpiry() throws {
        let token = try jwt.sign(SessionClaims(purpose: "session", sub: "usr_1", exp: future))
        let other = HS256JWT(key: Array("another key that is long enough....".utf8))
        #expect(throws: HS256JWT.Failure.badSignature) { try other.verify(token, as: SessionClaims.self) }

        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array("{\"purpose\":\"session\",\"sub\":\"usr_admin\",\"exp\":\(future)}".utf8))
        #expect(throws: HS256JWT.Failure.badSignature) {
            try jwt.verify(parts.joined(separator: "."), as: SessionClaims.self)
        }

        let expired = try jwt.sign(SessionClaims(purpose: "session", sub: "usr_1", exp: 1000))
        #expect(throws: HS256JWT.Failure.expired) { try jwt.verify(expired, as: SessionClaims.self) }
        #expect(try jwt.verify(expired, as: SessionClaims.self, checkExpiry: false).sub == "usr_1")
    }

    @Test func rejectsMalformedTokens() {
        for token in ["", "a.b", "a.b.c.d", "!!!.e30.", "e30.e30.e30", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.AAAA"] {
            #expect(throws: HS256JWT.Failure.self) { try jwt.verify(token, as: SessionClaims.self) }
        }
    }
}

struct DigestTests {
    @Test func knownVectors() {
        // RFC 4231 test case 2.
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Digest.hex(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func constantTimeEqual() {
        #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(Digest.constantTimeEqual([], []))
    }

    @Test func base64URLRoundTrips() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64URL.decode(Substring(Base64URL.encode(bytes))) == bytes)
        }
        #expect(Base64URL.decode("ab=c") == nil)
        #expect(Base64URL.decode("a") == nil)
    }

    @Test func uuidShape() {
        let id = Digest.uuid()
        #expect(id.count == 36)
        #expect(Array(id)[14] == "4")
    }
}
