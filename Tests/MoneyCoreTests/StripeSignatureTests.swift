import Crypto
import MoneyCore
import Testing

/// The webhook's signature check with the real HMAC-SHA256.
struct StripeSignatureTests {
    let secret = Array("whsec_test_secret".utf8)
    let body = Array(#"{"id":"evt_1","type":"checkout.session.completed"}"#.utf8)
    let now: Int64 = 1_790_000_000

    func sign(_ body: [UInt8], at t: Int64, secret: [UInt8]) -> String {
        Digest.hex(Digest.hmacSHA256(key: secret, message: Array("\(t).".utf8) + body))
    }

    var verifier: StripeSignature { StripeSignature(secrets: [secret], mac: Digest.hmacSHA256) }

    @Test func aFreshSignatureOverTheRawBodyIsAccepted() {
        let header = "t=\(now),v1=\(sign(body, at: now, secret: secret))"
        #expect(verifier.verify(header: header, body: body, now: now + 10) == .success(now))
    }

    @Test func anyOfSeveralV1SignaturesMayMatch() {
        let old = sign(body, at: now, secret: Array("whsec_old".utf8))
        let header = "t=\(now), v1=\(old), v1=\(sign(body, at: now, secret: secret)), v0=deadbeef"
        #expect(verifier.verify(header: header, body: body, now: now) == .success(now))
    }

    @Test func eitherOfTwoSecretsDuringRotation() {
        let rotating = StripeSignature(secrets: [Array("whsec_new".utf8), secret], mac: Digest.hmacSHA256)
        let header = "t=\(now),v1=\(sign(body, at: now, secret: secret))"
        #expect(rotating.verify(header: header, body: body, now: now) == .success(now))
    }

    @Test func aChangedBodyTimestampOrSecretIsRefused() {
        let signature = sign(body, at: now, secret: secret)
        #expect(
            verifier.verify(header: "t=\(now),v1=\(signature)", body: body + [0x20], now: now) == .failure(.mismatch))
        #expect(
            verifier.verify(header: "t=\(now + 1),v1=\(signature)", body: body, now: now) == .failure(.mismatch))
        let other = StripeSignature(secrets: [Array("whsec_other".utf8)], mac: Digest.hmacSHA256)
        #expect(other.verify(header: "t=\(now),v1=\(signature)", body: body, now: now) == .failure(.mismatch))
    }

    @Test func aStaleOrFutureSignatureIsRefused() {
        let stale = now - 600
        let header = "t=\(stale),v1=\(sign(body, at: stale, secret: secret))"
        #expect(verifier.verify(header: header, body: body, now: now) == .failure(.stale))
        let edge = now - 300
        #expect(
            verifier.verify(header: "t=\(edge),v1=\(sign(body, at: edge, secret: secret))", body: body, now: now)
                == .success(edge))
        let future = now + 301
        #expect(
            verifier.verify(header: "t=\(future),v1=\(sign(body, at: future, secret: secret))", body: body, now: now)
                == .failure(.stale))
    }

    @Test func malformedHeadersAreRefused() {
        #expect(verifier.verify(header: nil, body: body, now: now) == .failure(.missingHeader))
        #expect(verifier.verify(header: "", body: body, now: now) == .failure(.missingHeader))
        #expect(verifier.verify(header: "t=abc,v1=00", body: body, now: now) == .failure(.malformedHeader))
        #expect(verifier.verify(header: "t=\(now)", body: body, now: now) == .failure(.malformedHeader))
        #expect(verifier.verify(header: "t=\(now),v1=zz", body: body, now: now) == .failure(.malformedHeader))
        #expect(verifier.verify(header: "garbage", body: body, now: now) == .failure(.malformedHeader))
    }

    @Test func noSecretMatchesNothing() {
        let unconfigured = StripeSignature(secrets: [[]], mac: Digest.hmacSHA256)
        let header = "t=\(now),v1=\(sign(body, at: now, secret: []))"
        #expect(unconfigured.verify(header: header, body: body, now: now) == .failure(.mismatch))
    }
}
