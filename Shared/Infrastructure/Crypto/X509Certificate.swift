import CCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// One DER X.509 certificate parsed by libcrypto, owning its `X509` handle: the checks a certificate chain walk
/// needs (fingerprint, validity, issuer, signature, self-signature) and ES256 verification with its public key.
public final class X509Certificate {
    private let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { X509_free(handle) }

    /// Parses DER; nil when the bytes are not exactly one certificate.
    public static func parse(der: [UInt8]) -> X509Certificate? {
        guard !der.isEmpty else { return nil }
        return der.withUnsafeBufferPointer { buffer -> X509Certificate? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let handle = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard let start = buffer.baseAddress, cursor == start + buffer.count else {
                X509_free(handle)
                return nil
            }
            return X509Certificate(handle: handle)
        }
    }

    /// The SHA-256 of the DER encoding.
    public var sha256Fingerprint: [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(handle, EVP_sha256(), &out, &length) == 1 else { return [] }
        return Array(out.prefix(Int(length)))
    }

    /// Whether `now` (unix seconds) lies strictly inside notBefore…notAfter.
    public func isValid(at now: Int64) -> Bool {
        var t = time_t(now)
        guard let notBefore = X509_get0_notBefore(handle), let notAfter = X509_get0_notAfter(handle) else {
            return false
        }
        return X509_cmp_time(notBefore, &t) == -1 && X509_cmp_time(notAfter, &t) == 1
    }

    /// Whether `issuer` named and signed this certificate (names, key identifiers and key usage, then the signature).
    public func isIssued(by issuer: X509Certificate) -> Bool {
        guard X509_check_issued(issuer.handle, handle) == X509_V_OK, let key = X509_get0_pubkey(issuer.handle)
        else { return false }
        return X509_verify(handle, key) == 1
    }

    /// Issued by itself.
    public var isSelfSigned: Bool { isIssued(by: self) }

    /// Verifies an ES256 JWS signature (raw `r‖s`, 64 bytes) over `message` with this certificate's key, which must
    /// be an EC P-256 key.
    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = X509_get0_pubkey(handle), EVP_PKEY_get_base_id(key) == EVP_PKEY_EC,
            EVP_PKEY_get_bits(key) == 256, let der = Self.derSignature(signature),
            let context = EVP_MD_CTX_new()
        else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    /// `r‖s` as the DER `ECDSA-Sig-Value` libcrypto verifies.
    private static func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? out : nil
    }
}
