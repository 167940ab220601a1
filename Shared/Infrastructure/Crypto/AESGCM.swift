import CCrypto

/// AES-256-GCM sealing over libcrypto's EVP interface: a 12-byte IV, a 16-byte tag, no associated data.
public enum AESGCM {
    /// A sealed message: the IV it was sealed under, the authentication tag and the ciphertext.
    public struct Sealed: Sendable, Equatable {
        public let iv: [UInt8]
        public let tag: [UInt8]
        public let ciphertext: [UInt8]
    }

    public enum Failure: Error, Equatable {
        case badKey
        case cipher
    }

    /// Seals `plaintext` under a 32-byte `key`; `iv` (12 bytes) is random unless given (tests pin it).
    public static func seal(key: [UInt8], plaintext: [UInt8], iv: [UInt8] = Digest.randomBytes(12)) throws(Failure)
        -> Sealed
    {
        guard key.count == 32, iv.count == 12 else { throw .badKey }
        guard let context = EVP_CIPHER_CTX_new() else { throw .cipher }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        var final: Int32 = 0
        let ok =
            EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, nil) == 1
            && EVP_EncryptInit_ex(context, nil, nil, key, iv) == 1
            && plaintext.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    EVP_EncryptUpdate(context, output.baseAddress, &written, input.baseAddress, Int32(input.count))
                        == 1
                        && EVP_EncryptFinal_ex(context, output.baseAddress.map { $0 + Int(written) }, &final) == 1
                }
            }
            && tag.withUnsafeMutableBytes {
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, $0.baseAddress) == 1
            }
        guard ok else { throw .cipher }
        return Sealed(iv: iv, tag: tag, ciphertext: Array(out.prefix(Int(written + final))))
    }
}
