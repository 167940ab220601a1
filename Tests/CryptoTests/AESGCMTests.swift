import Crypto
import Testing

/// AES-256-GCM against the published test vectors (McGrew and Viega, test cases 13 and 14).
struct AESGCMTests {
    let zeroKey = [UInt8](repeating: 0, count: 32)
    let zeroIV = [UInt8](repeating: 0, count: 12)

    @Test func emptyPlaintextGivesTheKnownTag() throws {
        let sealed = try AESGCM.seal(key: zeroKey, plaintext: [], iv: zeroIV)
        #expect(sealed.ciphertext.isEmpty)
        #expect(Digest.hex(sealed.tag) == "530f8afbc74536b9a963b4f1c4cb738b")
    }

    @Test func oneZeroBlockGivesTheKnownCiphertextAndTag() throws {
        let sealed = try AESGCM.seal(key: zeroKey, plaintext: [UInt8](repeating: 0, count: 16), iv: zeroIV)
        #expect(Digest.hex(sealed.ciphertext) == "cea7403d4d606b6e074ec5d3baf39d18")
        #expect(Digest.hex(sealed.tag) == "d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test func aRandomIVEachTimeAndBadKeysRefused() throws {
        let a = try AESGCM.seal(key: zeroKey, plaintext: Array("token".utf8))
        let b = try AESGCM.seal(key: zeroKey, plaintext: Array("token".utf8))
        #expect(a.iv.count == 12)
        #expect(a.iv != b.iv)
        #expect(throws: AESGCM.Failure.badKey) { try AESGCM.seal(key: [1, 2, 3], plaintext: []) }
    }
}
