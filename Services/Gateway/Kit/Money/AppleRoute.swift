import Contracts
import FoundationEssentials
import HTTPServer
import MoneyCore
import Runtime

/// `POST /v1/billing/apple` (bearer): redeems a StoreKit 2 signed transaction. Verified and current → the user's
/// plan is `subscribed` and the answer is their entitlement; any failed check → 400 naming it; a transaction that
/// belongs to another account → 409. An expired or revoked transaction this user holds is unbound first.
struct AppleRoute: Sendable {
    let verifier: AppleTransactionVerifier
    let accounts: any AppleAccounts
    let entitlements: any EntitlementSource
    let lookups: LookupDeadline
    let logger: Logger
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    struct Body: Decodable {
        let signedTransaction: String?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            signedTransaction = try? c.decodeIfPresent(String.self, forKey: .signedTransaction)
        }

        enum CodingKeys: String, CodingKey { case signedTransaction }
    }

    var route: Route {
        Route("POST", "/v1/billing/apple", auth: .required, bodyLimit: 64 << 10) { context in
            guard let user = context.caller.user else { return .error(.unknownUser) }
            let body = try? JSONDecoder().decode(Body.self, from: Data(context.request.body))
            guard let token = body?.signedTransaction, (32...16384).contains(token.count) else {
                return .error(400, "invalid signedTransaction")
            }
            let verdict = verifier.verify(token, now: now())
            let accounts = self.accounts
            let entitlements = self.entitlements
            do {
                switch verdict {
                case .valid(let transaction):
                    let binding = try await lookups.run {
                        try await accounts.bind(
                            userId: user.id, originalTransactionId: transaction.originalTransactionId)
                    }
                    if binding == .takenByAnotherUser {
                        return .error(409, "transaction already linked to another account")
                    }
                    let state = try await lookups.run {
                        try await entitlements.entitlement(userId: user.id, deviceId: nil)
                    }
                    return .json(200, state)
                case .refused(let failure, let lapsed):
                    if let lapsed {
                        try await lookups.run {
                            try await accounts.unbind(userId: user.id, originalTransactionId: lapsed)
                        }
                    }
                    logger.info("apple transaction refused", [LogKeys.reason: .string(failure.rawValue)])
                    return .error(400, failure.rawValue)
                }
            } catch {
                logger.error("apple binding failed", [LogKeys.error: .string("\(error)")])
                return .error(.internalError)
            }
        }
    }
}
