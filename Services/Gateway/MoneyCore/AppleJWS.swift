import FoundationEssentials

/// Why a StoreKit 2 transaction is refused; the raw value is the API's `error` text.
public enum AppleJWSFailure: String, Error, Sendable, Equatable {
    case malformedJWS = "malformed jws"
    case malformedHeader = "malformed jws header"
    case unsupportedHeader = "unsupported jws header"
    case untrustedChain = "untrusted cert chain"
    case expiredCert = "expired cert"
    case badSignature = "bad signature"
    case malformedPayload = "malformed jws payload"
    case bundleMismatch = "bundle mismatch"
    case productMismatch = "product mismatch"
    case missingTransactionId = "missing transaction id"
    case notASubscription = "not a subscription"
    case xcodeNotAllowed = "xcode storekit not allowed"
    case unknownEnvironment = "unknown environment"
    case revoked
    case expired
}

/// A StoreKit 2 JWS taken apart: what is signed, the signature, the `x5c` chain (DER, leaf first) and the payload.
/// Only the structure is checked here; the chain and the signature are checked by the shell with libcrypto.
public struct AppleJWS: Sendable, Equatable {
    /// `<header>.<payload>` as sent: the bytes the signature covers.
    public var signingInput: [UInt8]
    /// Raw `r‖s`.
    public var signature: [UInt8]
    public var chain: [[UInt8]]
    public var payload: [UInt8]

    private struct Header: Decodable {
        let alg: String?
        let x5c: [String]?
    }

    /// Splits and decodes a compact JWS: three non-empty base64url parts, a JSON header with `alg: "ES256"` and a
    /// non-empty `x5c` of base64 DER certificates.
    public static func parse(_ token: String) -> Result<AppleJWS, AppleJWSFailure> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }), let headerBytes = base64URL(parts[0]),
            let payload = base64URL(parts[1]), let signature = base64URL(parts[2])
        else { return .failure(.malformedJWS) }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            return .failure(.malformedHeader)
        }
        guard header.alg == "ES256", let x5c = header.x5c, !x5c.isEmpty else { return .failure(.unsupportedHeader) }
        var chain: [[UInt8]] = []
        for entry in x5c {
            guard let der = Data(base64Encoded: entry), !der.isEmpty else { return .failure(.untrustedChain) }
            chain.append(Array(der))
        }
        return .success(
            AppleJWS(
                signingInput: Array((parts[0] + "." + parts[1]).utf8), signature: signature, chain: chain,
                payload: payload))
    }

    static func base64URL(_ text: Substring) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") })
        else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}

/// The transaction fields the App Store signs, as far as they are checked.
public struct AppleTransaction: Decodable, Sendable, Equatable {
    public var bundleId: String?
    public var productId: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    /// Milliseconds since 1970.
    public var expiresDate: Double?
    public var type: String?
    public var environment: String?
    public var revocationDate: Double?
}

/// What a verified transaction must say before it lifts a plan.
public struct AppleTransactionRules: Sendable {
    public let bundleId: String
    public let productId: String
    /// Xcode's local StoreKit environment is accepted only outside production.
    public let allowXcode: Bool

    public init(bundleId: String, productId: String, allowXcode: Bool) {
        self.bundleId = bundleId
        self.productId = productId
        self.allowXcode = allowXcode
    }

    /// The transaction when its payload passes every check at `nowMs`, else the first failed check.
    public func check(payload: [UInt8], nowMs: Double) -> Result<AppleTransaction, AppleJWSFailure> {
        guard let transaction = try? JSONDecoder().decode(AppleTransaction.self, from: Data(payload)) else {
            return .failure(.malformedPayload)
        }
        guard transaction.bundleId == bundleId else { return .failure(.bundleMismatch) }
        guard transaction.productId == productId else { return .failure(.productMismatch) }
        guard transaction.transactionId?.isEmpty == false, transaction.originalTransactionId?.isEmpty == false else {
            return .failure(.missingTransactionId)
        }
        if let type = transaction.type, type != "Auto-Renewable Subscription" { return .failure(.notASubscription) }
        switch transaction.environment {
        case nil, "Sandbox", "Production": break
        case "Xcode": if !allowXcode { return .failure(.xcodeNotAllowed) }
        default: return .failure(.unknownEnvironment)
        }
        if transaction.revocationDate != nil { return .failure(.revoked) }
        if let expires = transaction.expiresDate, expires <= nowMs { return .failure(.expired) }
        return .success(transaction)
    }
}
