import Crypto
import FoundationEssentials
import MoneyCore
import Runtime

/// Verifies a StoreKit 2 signed transaction: the JWS structure (`MoneyCore`), the `x5c` chain up to the pinned
/// root with libcrypto (each certificate valid now, issued by and verifying under the next, the root pinned by its
/// SHA-256 and present only last, no self-signed leaf), the ES256 signature with the leaf's key, then the payload
/// rules.
struct AppleTransactionVerifier: Sendable {
    /// Apple Root CA - G3's SHA-256 fingerprint.
    static let appleRootG3 = "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"

    /// The pinned root's SHA-256 (`APPLE_ROOT_CA_SHA256`, default Apple Root CA - G3; tests pin a test root).
    let pinnedRoot: [UInt8]
    let rules: AppleTransactionRules

    init(_ env: Environment) {
        let hex = (env.get("APPLE_ROOT_CA_SHA256") ?? Self.appleRootG3).filter { $0 != ":" }
        pinnedRoot = Self.bytes(hex: hex)
        rules = AppleTransactionRules(
            bundleId: env.get("APPLE_BUNDLE_ID") ?? "com.mapvest.app",
            productId: env.get("APPLE_IAP_PRODUCT_ID") ?? "mapvest_pro_monthly", allowXcode: env.isDevelopment)
    }

    /// What a signed transaction amounts to.
    enum Verdict: Sendable, Equatable {
        /// Verified, and the original transaction id is present.
        case valid(Transaction)
        /// Refused; `lapsed` is the original transaction id of a verified but expired or revoked transaction.
        case refused(AppleJWSFailure, lapsed: String?)
    }

    /// A verified transaction's ids.
    struct Transaction: Sendable, Equatable {
        let transactionId: String
        let originalTransactionId: String
    }

    func verify(_ token: String, now: Int64) -> Verdict {
        switch check(token, now: now) {
        case .success(let transaction):
            guard let id = transaction.transactionId, let original = transaction.originalTransactionId else {
                return .refused(.missingTransactionId, lapsed: nil)
            }
            return .valid(Transaction(transactionId: id, originalTransactionId: original))
        case .failure(let failure):
            guard failure == .expired || failure == .revoked, case .success(let jws) = AppleJWS.parse(token),
                let transaction = try? JSONDecoder().decode(AppleTransaction.self, from: Data(jws.payload))
            else { return .refused(failure, lapsed: nil) }
            return .refused(failure, lapsed: transaction.originalTransactionId)
        }
    }

    private func check(_ token: String, now: Int64) -> Result<AppleTransaction, AppleJWSFailure> {
        let jws: AppleJWS
        switch AppleJWS.parse(token) {
        case .success(let parsed): jws = parsed
        case .failure(let failure): return .failure(failure)
        }
        let parsed = jws.chain.map { X509Certificate.parse(der: $0) }
        let certificates = parsed.compactMap { $0 }
        guard certificates.count == parsed.count, certificates.count >= 2, let root = certificates.last,
            root.sha256Fingerprint == pinnedRoot, root.isSelfSigned,
            !certificates.dropLast().contains(where: { $0.sha256Fingerprint == pinnedRoot })
        else { return .failure(.untrustedChain) }
        guard certificates.allSatisfy({ $0.isValid(at: now) }) else { return .failure(.expiredCert) }
        for index in certificates.indices.dropLast() {
            let certificate = certificates[index]
            guard !certificate.isSelfSigned, certificate.isIssued(by: certificates[index + 1]) else {
                return .failure(.untrustedChain)
            }
        }
        guard certificates[0].verifyES256(signature: jws.signature, message: jws.signingInput) else {
            return .failure(.badSignature)
        }
        return rules.check(payload: jws.payload, nowMs: Double(now) * 1000)
    }

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var iterator = hex.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let byte = UInt8(String([high, low]), radix: 16) else { return [] }
            out.append(byte)
        }
        return out
    }
}
