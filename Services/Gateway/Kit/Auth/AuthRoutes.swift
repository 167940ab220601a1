import Contracts
import Crypto
import Foundation
import HTTPServer
import Runtime

/// Sign-in and session routes (docs/COMPATIBILITY.md#sign-in): emailed codes, magic links, `/v1/auth/me` and maps
/// tokens.
struct AuthRoutes: Sendable {
    let tokens: SessionTokens
    let users: any AccountStore
    let codes: any SignInCodeStore
    /// Bounds the code, magic-link and user lookups.
    let lookups: LookupDeadline
    let mail: any MailSender
    /// `AUTH_RETURN_CODE=1` outside production: the code is returned in `devCode` (as the original did).
    let returnCodes: Bool
    /// `PUBLIC_API_URL`, for magic links.
    let publicURL: String
    let logger: Logger

    struct SessionBody: Codable, Sendable, Equatable {
        let token: String
        let userId: String
        let expiresAt: String
    }

    var routes: [Route] {
        [
            Route("POST", "/v1/auth/session") { await requestCode($0) },
            Route("POST", "/v1/auth/session/verify") { await verifyCode($0) },
            Route("POST", "/v1/auth/request-magic-link") { await requestMagicLink($0) },
            Route("POST", "/v1/auth/verify") { await verifyMagicLink($0) },
            Route("GET", "/v1/auth/verify") { await openMagicLink($0) },
            Route("GET", "/v1/auth/me", auth: .required) { context in
                guard let user = context.caller.user else { return .error(.unknownUser) }
                return .json(200, ["user": user])
            },
            Route("POST", "/v1/session/maps-token", auth: .required) { context in
                guard let user = context.caller.user, let issued = try? tokens.issueMaps(userId: user.id) else {
                    return .error(.internalError)
                }
                return .json(200, ["token": issued.token, "expiresAt": Timestamp.iso8601(issued.expiresAt)])
            },
        ]
    }

    private struct EmailInput: Decodable { let email: String? }
    private struct CodeInput: Decodable {
        let email: String?
        let code: String?
    }
    private struct TokenInput: Decodable { let token: String? }

    func requestCode(_ context: RouteContext) async -> HTTPResponse {
        guard case .success(let input) = JSONBody.decode(EmailInput.self, from: context.request, error: ""),
            let email = AuthInput.normalizedEmail(input.email)
        else { return .error(.emailRequired) }
        do {
            let code = try await lookups.run { try await codes.issue(email: email) }
            try await mail.send(
                to: email, subject: "Your Mapvest sign-in code",
                body: "Your Mapvest code is \(code). It expires in 10 minutes.")
            if returnCodes { return .json(200, SentBody(sent: true, devCode: code)) }
            return .json(200, SentBody(sent: true, devCode: nil))
        } catch {
            logger.warning("sign-in code not issued", [LogKeys.error: "\(error)"])
            return .error(.signInUnavailable)
        }
    }

    func verifyCode(_ context: RouteContext) async -> HTTPResponse {
        guard case .success(let input) = JSONBody.decode(CodeInput.self, from: context.request, error: ""),
            let email = AuthInput.normalizedEmail(input.email),
            let code = input.code?.trimmingCharacters(in: .whitespaces),
            (4...8).contains(code.count), code.allSatisfy(\.isASCIIDigit)
        else { return .error(400, "email + 6-digit code required") }
        do {
            switch try await lookups.run({ try await codes.verify(email: email, code: code) }) {
            case .noCode: return .error(401, "no code issued for that email")
            case .expired: return .error(401, "code expired")
            case .wrong: return .error(401, "wrong code")
            case .ok:
                let user = try await lookups.run { try await users.findOrCreate(email: email) }
                let issued = try tokens.issueSession(userId: user.id, email: user.email)
                return .json(
                    200,
                    SessionAndUser(
                        session: SessionBody(
                            token: issued.token, userId: user.id, expiresAt: Timestamp.iso8601(issued.expiresAt)),
                        user: user))
            }
        } catch {
            logger.warning("sign-in verification failed", [LogKeys.error: "\(error)"])
            return .error(.signInUnavailable)
        }
    }

    func requestMagicLink(_ context: RouteContext) async -> HTTPResponse {
        guard case .success(let input) = JSONBody.decode(EmailInput.self, from: context.request, error: ""),
            let email = AuthInput.normalizedEmail(input.email)
        else { return .error(.emailRequired) }
        do {
            let jti = Digest.uuid()
            let token = try tokens.issueMagic(email: email, jti: jti)
            try await lookups.run { try await codes.rememberMagicLink(jti: jti, email: email) }
            try await mail.send(
                to: email, subject: "Sign in to Mapvest",
                body: "Open this link to sign in: \(publicURL)/v1/auth/verify?token=\(token)")
            return .json(200, SentBody(sent: true, devCode: nil))
        } catch {
            logger.warning("magic link not issued", [LogKeys.error: "\(error)"])
            return .error(.signInUnavailable)
        }
    }

    /// `POST /v1/auth/verify {token}` → `{session}` (docs/COMPATIBILITY.md#sign-in).
    func verifyMagicLink(_ context: RouteContext) async -> HTTPResponse {
        guard case .success(let input) = JSONBody.decode(TokenInput.self, from: context.request, error: "") else {
            return .error(400, "token required")
        }
        switch await redeemMagicLink(input.token) {
        case .signedIn(let session, _): return .json(200, ["session": session])
        case .rejected(let status, let message): return .error(status, message)
        }
    }

    /// `GET /v1/auth/verify?token=…`: the mailed link opened in a browser. The same single-use redemption as the
    /// POST; a browser gets a small HTML page (signed in, or why not), a client asking for JSON the POST's answer.
    func openMagicLink(_ context: RouteContext) async -> HTTPResponse {
        let outcome = await redeemMagicLink(context.request.query["token"])
        if MagicLinkPage.prefersJSON(context.request.headers["Accept"]) {
            let headers = MagicLinkPage.privateHeaders
            switch outcome {
            case .signedIn(let session, _): return .json(200, ["session": session], headers: headers)
            case .rejected(let status, let message): return .error(status, message, headers: headers)
            }
        }
        return MagicLinkPage.response(for: outcome)
    }

    /// What redeeming a magic-link token came to.
    enum MagicLinkOutcome: Equatable {
        case signedIn(SessionBody, email: String)
        case rejected(status: Int, message: String)
    }

    /// Verifies the token and consumes its pending link (single use), then issues a session for the address.
    func redeemMagicLink(_ token: String?) async -> MagicLinkOutcome {
        guard let token, token.count >= 10 else { return .rejected(status: 400, message: "token required") }
        let claims: TokenClaims
        do {
            claims = try tokens.verifyMagic(token)
        } catch .wrongPurpose {
            return .rejected(status: 401, message: "wrong token purpose")
        } catch {
            return .rejected(status: 401, message: "invalid or expired token")
        }
        guard let jti = claims.jti, let email = claims.email else {
            return .rejected(status: 401, message: "malformed token")
        }
        do {
            guard let pending = try await lookups.run({ try await codes.consumeMagicLink(jti: jti) }) else {
                return .rejected(status: 401, message: "token already used or expired")
            }
            guard pending == email.lowercased() else { return .rejected(status: 401, message: "token mismatch") }
            let user = try await lookups.run { try await users.findOrCreate(email: email) }
            let issued = try tokens.issueSession(userId: user.id, email: user.email)
            return .signedIn(
                SessionBody(token: issued.token, userId: user.id, expiresAt: Timestamp.iso8601(issued.expiresAt)),
                email: user.email)
        } catch {
            logger.warning("magic link verification failed", [LogKeys.error: "\(error)"])
            return .rejected(status: 503, message: "sign-in unavailable")
        }
    }

    struct SentBody: Codable {
        let sent: Bool
        let devCode: String?
    }

    struct SessionAndUser: Codable {
        let session: SessionBody
        let user: User
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
