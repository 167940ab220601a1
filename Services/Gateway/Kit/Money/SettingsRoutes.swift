import Contracts
import Crypto
import FoundationEssentials
import HTTPServer
import MoneyCore
import Runtime

/// `GET /v1/settings`, `POST`/`DELETE /v1/settings/robinhood-mcp` and `GET /v1/robinhood` (all bearer): the
/// account, the Robinhood MCP link (stored sealed; only a fingerprint and the last four characters are ever shown)
/// and the Robinhood deep link it unlocks. Mapvest never places orders.
struct SettingsRoutes: Sendable {
    let links: any RobinhoodLinks
    let sealer: TokenSealer
    let lookups: LookupDeadline
    let logger: Logger

    struct Account: Encodable {
        let id: String
        let email: String
        let scopes: [String]
    }

    struct Settings: Encodable {
        let user: Account
        let robinhoodMcp: RobinhoodStatus
        let note: String
    }

    struct Changed: Encodable {
        let ok: Bool
        let robinhoodMcp: RobinhoodStatus
    }

    struct TokenBody: Decodable {
        let token: String?
    }

    struct Link: Encodable {
        let ticker: String
        let configured: Bool
        let linkOut: String
        let note: String
    }

    struct NotConfigured: Encodable {
        let error: String
        let note: String
    }

    var routes: [Route] {
        [
            Route("GET", "/v1/settings", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                return await answer {
                    let status = try await $0.status(userId: user.id)
                    return .json(
                        200,
                        Settings(
                            user: Account(id: user.id, email: user.email, scopes: user.scopes), robinhoodMcp: status,
                            note: RobinhoodLink.settingsNote))
                }
            },
            Route("POST", "/v1/settings/robinhood-mcp", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                let body = try? JSONDecoder().decode(TokenBody.self, from: Data(context.request.body))
                guard let token = RobinhoodLink.token(body?.token) else {
                    return .error(400, RobinhoodLink.tokenError)
                }
                guard let sealed = seal(token) else { return .error(.internalError) }
                let fingerprint = RobinhoodLink.fingerprint(sha256: Digest.sha256(Array(token.utf8)))
                return await answer {
                    let status = try await $0.save(
                        userId: user.id, ciphertext: sealed, fingerprint: fingerprint,
                        last4: RobinhoodLink.last4(token))
                    return .json(200, Changed(ok: true, robinhoodMcp: status))
                }
            },
            Route("DELETE", "/v1/settings/robinhood-mcp", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                return await answer {
                    try await $0.clear(userId: user.id)
                    return .json(200, Changed(ok: true, robinhoodMcp: .notConfigured))
                }
            },
            Route("GET", "/v1/robinhood", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                guard let ticker = RobinhoodLink.ticker(context.request.query["ticker"]) else {
                    return .error(.tickerRequired)
                }
                return await answer {
                    guard try await $0.status(userId: user.id).configured else {
                        return .json(
                            403,
                            NotConfigured(
                                error: "robinhood_mcp_not_configured", note: RobinhoodLink.notConfiguredNote))
                    }
                    return .json(
                        200,
                        Link(
                            ticker: ticker, configured: true, linkOut: RobinhoodLink.linkOut(ticker: ticker),
                            note: RobinhoodLink.linkNote))
                }
            },
        ]
    }

    private func seal(_ token: String) -> String? {
        do {
            return try sealer.seal(token)
        } catch {
            logger.error("robinhood key not sealed", [LogKeys.error: .string("\(error)")])
            return nil
        }
    }

    /// Runs a store step under the lookup deadline; a failure is logged and answered 500.
    private func answer(_ work: @escaping @Sendable (any RobinhoodLinks) async throws -> HTTPResponse) async
        -> HTTPResponse
    {
        let links = self.links
        do {
            return try await lookups.run { try await work(links) }
        } catch {
            logger.error("robinhood link store failed", [LogKeys.error: .string("\(error)")])
            return .error(.internalError)
        }
    }
}

/// Seals a user's third-party key for storage: `v1.<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM under the
/// SHA-256 of the session signing key. Nothing on the server opens it again; rotating the session key orphans it.
struct TokenSealer: Sendable {
    private let key: [UInt8]

    init(sessionKey: [UInt8]) { key = Digest.sha256(sessionKey) }

    func seal(_ token: String) throws -> String {
        let sealed = try AESGCM.seal(key: key, plaintext: Array(token.utf8))
        return ["v1", Base64URL.encode(sealed.iv), Base64URL.encode(sealed.tag), Base64URL.encode(sealed.ciphertext)]
            .joined(separator: ".")
    }
}
