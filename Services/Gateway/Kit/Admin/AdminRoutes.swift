import Contracts
import Foundation
import HTTPServer
import Runtime

/// `/v1/admin/*`: for callers whose email is in `ADMIN_EMAILS` (checked on every request, so removing an address
/// takes effect at once); anyone else signed in gets 403, anonymous callers 401. Every admin request is written to
/// the admin log before it is answered, and a request whose log entry cannot be written is refused (503).
struct AdminRoutes: Sendable {
    let users: any AdminDirectory
    let log: any AdminJournal
    let usage: any UsageSource
    let reports: AdminReports
    let logger: Logger

    var routes: [Route] {
        [
            admin("GET", "/v1/admin/metrics") { context, _ in
                guard let hours = Self.windowHours(context.request.head.query["windowSeconds"]) else {
                    return .error(.windowSecondsOutOfRange)
                }
                return .json(200, reports.metrics(try await usage.sum(hours: hours), hours: hours))
            },
            admin("GET", "/v1/admin/cost") { context, _ in
                guard let hours = Self.windowHours(context.request.head.query["windowSeconds"]) else {
                    return .error(.windowSecondsOutOfRange)
                }
                return .json(200, reports.cost(try await usage.sum(hours: hours), hours: hours))
            },
            admin("GET", "/v1/admin/users") { context, _ in
                let limit = Self.limit(context.request.head.query["limit"], default: 100, max: 500)
                return .json(200, ["users": try await users.list(limit: limit)])
            },
            admin("GET", "/v1/admin/log") { context, _ in
                let limit = Self.limit(context.request.head.query["limit"], default: 100, max: 500)
                return .json(200, ["entries": try await log.recent(limit: limit)])
            },
            admin("POST", "/v1/admin/users/:id/entitlement") { context, admin in
                guard let userId = context.parameters["id"], !userId.isEmpty, userId.count <= 64 else {
                    return .error(400, "user id required")
                }
                guard case .success(let body) = JSONBody.decode(Grant.self, from: context.request, error: "") else {
                    return .error(400, "body must be {\"freeForever\": boolean, \"reason\"?: string}")
                }
                if let reason = body.reason, reason.count > 200 {
                    return .error(400, "reason must be at most 200 chars")
                }
                guard
                    let user = try await users.setFreeForever(
                        userId: userId, body.freeForever, reason: body.reason, admin: admin.id)
                else { return .error(404, "user not found") }
                return .json(200, ["user": user])
            },
        ]
    }

    private struct Grant: Decodable {
        let freeForever: Bool
        let reason: String?
    }

    /// A route for admins: 401 without a user, 403 without the scope, then the request is logged and answered.
    private func admin(
        _ method: String, _ template: String,
        _ handle: @escaping @Sendable (RouteContext, User) async throws -> HTTPResponse
    ) -> Route {
        let (users, log, logger) = (self.users, self.log, self.logger)
        return Route(method, template, auth: .required) { context in
            guard let user = context.caller.user else { return .error(.unknownUser) }
            guard users.adminEmails.contains(user.email.lowercased()) else {
                return .error(403, "admin scope required")
            }
            do {
                var detail = ["route": "\(method) \(template)"]
                if let target = context.parameters["id"] { detail["target"] = target }
                try await log.append(
                    kind: "admin_action", actor: user.id, subject: context.parameters["id"], detail: detail)
            } catch {
                logger.warning(
                    "admin log unavailable; refusing the admin request", [LogKeys.error: .string("\(error)")])
                return .error(503, "admin log unavailable")
            }
            do {
                return try await handle(context, user)
            } catch {
                logger.warning(
                    "admin request failed", [LogKeys.route: .string(template), LogKeys.error: .string("\(error)")])
                return .error(503, "admin data unavailable")
            }
        }
    }

    /// `windowSeconds` (default 86 400) as whole hours, 1…48; nil when it is not a number in 1…172 800.
    static func windowHours(_ raw: String?) -> Int? {
        guard let raw else { return 24 }
        guard let seconds = Double(raw.trimmingCharacters(in: .whitespaces)), seconds.isFinite,
            (1...172_800).contains(seconds)
        else { return nil }
        return Int((seconds / 3600).rounded(.up))
    }

    static func limit(_ raw: String?, default value: Int, max: Int) -> Int {
        // Clamped before the conversion: `Int(1e19)` would trap.
        guard let raw, let n = Double(raw.trimmingCharacters(in: .whitespaces)), n.isFinite else { return value }
        return n.clampedInt(1...max) ?? value
    }
}

/// The users the admin routes list and entitle, and who is an admin: `UserStore` in the binary.
protocol AdminDirectory: Sendable {
    /// `ADMIN_EMAILS`, lowercased.
    var adminEmails: Set<String> { get }
    func list(limit: Int) async throws -> [AdminUser]
    func setFreeForever(userId: String, _ on: Bool, reason: String?, admin: String) async throws -> AdminUser?
}

/// The admin log as the admin routes use it: `AdminLog` (Postgres) in the binary.
protocol AdminJournal: Sendable {
    func append(kind: String, actor: String?, subject: String?, detail: [String: String]) async throws
    func recent(limit: Int) async throws -> [AdminLogEntry]
}

/// The hourly usage counters summed over the last `hours` hours: `UsageTotals` (Redis) in the binary.
protocol UsageSource: Sendable {
    func sum(hours: Int) async throws -> [UsageTotals.Series]
}

extension UserStore: AdminDirectory {}

extension AdminLog: AdminJournal {}
