/// Push route bodies, validation, the gateway → PushDispatcher commands and the push events
/// (docs/COMPATIBILITY.md#push-types, #push-routes, #push-semantics, #push-delivery). The request type for
/// notifications is `PushRequest` (Push.swift).

/// Field validation shared by the gateway (which answers 400s) and the PushDispatcher (which re-checks).
/// Mirrors the original schemas: values are trimmed; a wrongly typed field fails like a missing one.
public enum PushWire {
    /// Longest text between an Expo token's brackets. The contract's regex sets no bound; real tokens hold ~22
    /// characters, and a bound keeps a hostile value out of the btree indexes.
    static let maxExpoTokenContent = 480

    /// An Expo token (`ExponentPushToken[…]` or `ExpoPushToken[…]`, trimmed), or nil. Between the brackets: 1…480
    /// printable ASCII characters other than `]` (docs/openapi.yaml's pattern; Expo issues no other kind).
    public static func expoToken(_ value: JSONValue?) -> String? {
        guard case .string(let raw)? = value else { return nil }
        return expoToken(raw)
    }

    public static func expoToken(_ raw: String) -> String? {
        let token = raw.trimmingASCIIWhitespace()
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] where token.utf8.starts(with: prefix.utf8) {
            let inner = token.utf8.dropFirst(prefix.utf8.count)
            guard inner.last == UInt8(ascii: "]") else { return nil }
            let content = inner.dropLast()
            let printable = content.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "]") }
            return printable && (1...maxExpoTokenContent).contains(content.count) ? token : nil
        }
        return nil
    }

    /// An opaque registration id (`push_<32 hex>` when issued by us): trimmed, 1…128 characters, or nil.
    public static func tokenId(_ value: JSONValue?) -> String? {
        guard case .string(let raw)? = value else { return nil }
        return tokenId(raw)
    }

    public static func tokenId(_ raw: String) -> String? {
        let id = raw.trimmingASCIIWhitespace()
        return (1...128).contains(id.count) ? id : nil
    }

    /// An optional advisory `deviceId` (at most 128 Unicode scalars as sent, then trimmed): `.success(nil)` when
    /// absent or empty, `.failure` when invalid.
    public static func deviceId(_ value: JSONValue?) -> Result<String?, InvalidField> {
        switch value {
        case nil, .null?: return .success(nil)
        case .string(let raw)?:
            guard raw.unicodeScalars.count <= 128 else { return .failure(InvalidField()) }
            let id = raw.trimmingASCIIWhitespace()
            return .success(id.isEmpty ? nil : id)
        default: return .failure(InvalidField())
        }
    }

    /// `platform`: `ios` (default) or `android`.
    public static func platform(_ value: JSONValue?) -> Result<String, InvalidField> {
        switch value {
        case nil, .null?: return .success("ios")
        case .string("ios")?: return .success("ios")
        case .string("android")?: return .success("android")
        default: return .failure(InvalidField())
        }
    }

    /// The ten consent flags: the product switch and the nine event keys.
    public static let consentFlags: [String] = ["notifications_enabled"] + PushEventKey.allCases.map(\.rawValue)

    /// A preference patch as the server applies it (docs/COMPATIBILITY.md#push-semantics): booleans for the ten flags,
    /// numbers for `last_lat` and `last_lng`, a string `last_location_at`; `last_sent` and unknown keys are dropped
    /// (forward compatible). nil when a known key has the wrong type (the original schema rejects those).
    public static func preferencePatch(_ prefs: [String: JSONValue]) -> [String: JSONValue]? {
        var patch: [String: JSONValue] = [:]
        for (key, value) in prefs {
            if consentFlags.contains(key) {
                guard case .bool = value else { return nil }
                patch[key] = value
            } else if key == "last_lat" || key == "last_lng" {
                guard case .number(let n) = value, n.isFinite else { return nil }
                patch[key] = value
            } else if key == "last_location_at" {
                guard case .string = value else { return nil }
                patch[key] = value
            }
        }
        return patch
    }

    /// A patch carrying both coordinates is a location heartbeat.
    public static func isHeartbeat(_ patch: [String: JSONValue]) -> Bool {
        patch["last_lat"] != nil && patch["last_lng"] != nil
    }

    /// Prefs of a fresh or transferred claim: the product switch and every event opt-in off.
    public static var mutedFlags: [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: consentFlags.map { ($0, JSONValue.bool(false)) })
    }

    public struct InvalidField: Error, Sendable {
        public init() {}
    }
}

extension String {
    /// Trims what JavaScript's `String.prototype.trim` trims that matters here: ASCII spaces, tabs and newlines.
    /// By scalar: "\r\n" is one `Character`, equal to neither "\r" nor "\n".
    fileprivate func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || ("\t"..."\r").contains($0) }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }
}

// MARK: Responses

/// `POST /v1/push/register` → `{id, prefs}`.
public struct PushRegisterResponse: Codable, Sendable, Equatable {
    public var id: String
    public var prefs: [String: JSONValue]

    public init(id: String, prefs: [String: JSONValue]) {
        self.id = id
        self.prefs = prefs
    }
}

/// `POST /v1/push/prefs` → `{prefs}`.
public struct PushPrefsResponse: Codable, Sendable, Equatable {
    public var prefs: [String: JSONValue]

    public init(prefs: [String: JSONValue]) { self.prefs = prefs }
}

/// `GET /v1/push/prefs` → `{prefs, tokenId}`; the explicit empty result is `{prefs:{}, tokenId:null}`.
public struct PushPrefsReadResponse: Codable, Sendable, Equatable {
    public var prefs: [String: JSONValue]
    /// Nullable on the wire: encoded as `null`, never omitted.
    public var tokenId: String?

    public init(prefs: [String: JSONValue], tokenId: String?) {
        self.prefs = prefs
        self.tokenId = tokenId
    }

    /// No installation selected (omitted, stale or foreign id): never a sibling device.
    public static let empty = PushPrefsReadResponse(prefs: [:], tokenId: nil)

    private enum CodingKeys: String, CodingKey { case prefs, tokenId }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(prefs, forKey: .prefs)
        try c.encode(tokenId, forKey: .tokenId)
    }
}

/// The typed outcome of the three revoke routes.
public enum PushRevocationOutcome: String, Codable, Sendable {
    case revoked
    case alreadyRevoked = "already-revoked"
    case claimMismatch = "claim-mismatch"

    /// `claim-mismatch` is a 409 so older clients cannot mistake it for completed cleanup.
    public var httpStatus: Int { self == .claimMismatch ? 409 : 200 }
}

/// `PushDeviceRevocationResponse`: exactly one of the three shapes in docs/COMPATIBILITY.md#push-types.
public struct PushDeviceRevocationResponse: Codable, Sendable, Equatable {
    public var revoked: Bool
    public var matched: Bool
    public var outcome: PushRevocationOutcome

    public init(_ outcome: PushRevocationOutcome) {
        self.outcome = outcome
        self.revoked = outcome != .claimMismatch
        self.matched = outcome == .revoked
    }
}

// MARK: Commands (gateway → PushDispatcher on `mapvest.push.commands.v1`)

/// Register (or re-claim) a physical Expo token for the signed-in user.
public struct PushRegisterCommand: Codable, Sendable, Equatable {
    public static let name = "push.register.v1"
    public var userId: String
    public var token: String
    public var platform: String
    public var deviceId: String?

    public init(userId: String, token: String, platform: String, deviceId: String?) {
        self.userId = userId
        self.token = token
        self.platform = platform
        self.deviceId = deviceId
    }
}

/// Read the prefs of one exact installation owned by the user.
public struct PushPrefsReadCommand: Codable, Sendable, Equatable {
    public static let name = "push.prefs.read.v1"
    public var userId: String
    public var tokenId: String

    public init(userId: String, tokenId: String) {
        self.userId = userId
        self.tokenId = tokenId
    }
}

/// Merge a validated patch (`PushWire.preferencePatch`) into one installation's prefs.
public struct PushPrefsWriteCommand: Codable, Sendable, Equatable {
    public static let name = "push.prefs.write.v1"
    public var userId: String
    public var tokenId: String
    public var patch: [String: JSONValue]

    public init(userId: String, tokenId: String, patch: [String: JSONValue]) {
        self.userId = userId
        self.tokenId = tokenId
        self.patch = patch
    }
}

/// `DELETE /v1/push/token/:id`: unlink the caller's active registration.
public struct PushDeleteTokenCommand: Codable, Sendable, Equatable {
    public static let name = "push.token.delete.v1"
    public var userId: String
    public var tokenId: String

    public init(userId: String, tokenId: String) {
        self.userId = userId
        self.tokenId = tokenId
    }
}

/// Public revoke: the Expo token and its opaque id together prove the installation.
public struct PushRevokeDeviceCommand: Codable, Sendable, Equatable {
    public static let name = "push.revoke.device.v1"
    public var token: String
    public var tokenId: String
    public var deviceId: String?

    public init(token: String, tokenId: String, deviceId: String?) {
        self.token = token
        self.tokenId = tokenId
        self.deviceId = deviceId
    }
}

/// Bearer revoke by Expo token: only the caller's own active claim.
public struct PushRevokeCurrentDeviceCommand: Codable, Sendable, Equatable {
    public static let name = "push.revoke.current-device.v1"
    public var userId: String
    public var token: String
    public var deviceId: String?

    public init(userId: String, token: String, deviceId: String?) {
        self.userId = userId
        self.token = token
        self.deviceId = deviceId
    }
}

/// Revoke with an expired session: the gateway verified the JWT (expiry ignored, must be expired) and the 90-day
/// rule for Expo-token-only recovery; `subject` is the signed `sub`. At least one of `token` and `tokenId` is set.
public struct PushRevokeExpiredSessionDeviceCommand: Codable, Sendable, Equatable {
    public static let name = "push.revoke.expired-session-device.v1"
    public var subject: String
    public var token: String?
    public var tokenId: String?
    public var deviceId: String?

    public init(subject: String, token: String?, tokenId: String?, deviceId: String?) {
        self.subject = subject
        self.token = token
        self.tokenId = tokenId
        self.deviceId = deviceId
    }
}

// MARK: Events (CloudEvents on `mapvest.events.v1`; counts only, never tokens, ids, titles or bodies)

/// `mapvest.push.handed_off` (schema 1): notifications of one request that Expo accepted.
public struct PushHandedOffEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.push.handed_off"
    public static let schemaVersion = 1
    public var eventKind: String
    public var eventKey: String?
    public var count: Int

    public init(eventKind: String, eventKey: String?, count: Int) {
        self.eventKind = eventKind
        self.eventKey = eventKey
        self.count = count
    }
}

/// `mapvest.push.failed` (schema 1): notifications of one request that were not handed off.
public struct PushFailedEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.push.failed"
    public static let schemaVersion = 1
    public var eventKind: String
    public var eventKey: String?
    public var count: Int
    /// Of `count`, tokens Expo reported as `DeviceNotRegistered` (pruned).
    public var invalidTokens: Int
    /// `expo_disabled` (production gate closed), `expo_rejected` (tickets or 4xx) or `expo_unavailable`.
    public var reason: String

    public init(eventKind: String, eventKey: String?, count: Int, invalidTokens: Int, reason: String) {
        self.eventKind = eventKind
        self.eventKey = eventKey
        self.count = count
        self.invalidTokens = invalidTokens
        self.reason = reason
    }
}
