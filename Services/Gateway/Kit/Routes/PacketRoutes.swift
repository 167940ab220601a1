import Contracts
import Foundation
import HTTPServer
import ResearchCore
import Runtime

/// Prism and Situate (`/v1/prism/*` and its alias `/v1/ubermemo/*`, `/v1/situate/*` and its alias `/v1/research/*`):
/// a build (`POST`, the free generation quota, kind `memo`) starts or joins a durable job in the Research service and
/// answers at once — the packet when today's is stored, else 202 with the job's state; reads and exports are free.
struct PacketRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let quota: any GenerationQuota
    let chat: PacketChatRoute
    let logger: Logger

    static let engineURL = "https://underlying-terminal-production.up.railway.app"

    var routes: [Route] {
        [(PacketKind.prism, "prism"), (.prism, "ubermemo"), (.situate, "situate"), (.situate, "research")].flatMap {
            routes(kind: $0.0, prefix: "/v1/" + $0.1)
        }
    }

    private func routes(kind: PacketKind, prefix: String) -> [Route] {
        let quota = self.quota
        let guarded: Route.Guard = { caller, _ in (await quota.check(caller), []) }
        return [
            Route("GET", prefix) { _ in .json(200, Self.root(kind)) },
            Route("POST", prefix, auth: .optional, guard: guarded) { context in
                let owner = AgentRoutes.owner(context.caller)
                let command: PacketBuildCommand
                switch PacketInput.build(context.request, kind: kind, owner: owner) {
                case .success(let valid): command = valid
                case .failure(let response): return response
                }
                let response = await caller.call(
                    .research, PacketBuildCommand.name, key: command.ticker, command: command, budget: budget,
                    requestId: context.requestId)
                await charge(response, owner: owner, requestId: context.requestId)
                return response
            },
            Route("GET", prefix + "/:ticker") { context in
                guard let ticker = PacketInput.ticker(context.parameters["ticker"]) else {
                    return PacketInput.badRequest(kind, "invalid ticker")
                }
                return await caller.call(
                    .research, PacketReadCommand.name, key: ticker,
                    command: PacketReadCommand(kind: kind, ticker: ticker, format: nil), budget: budget,
                    requestId: context.requestId)
            },
            Route("GET", prefix + "/:ticker/export") { context in
                guard let ticker = PacketInput.ticker(context.parameters["ticker"]) else {
                    return PacketInput.badRequest(kind, "invalid ticker")
                }
                guard let format = PacketInput.format(context.request.head.query["format"]) else {
                    return PacketInput.badRequest(kind, "format must be one of txt, json, pdf")
                }
                return AgentRoutes.document(
                    await caller.call(
                        .research, PacketReadCommand.name, key: ticker,
                        command: PacketReadCommand(kind: kind, ticker: ticker, format: format), budget: budget,
                        requestId: context.requestId))
            },
            chat.route(kind, prefix: prefix),
        ]
    }

    /// Counts a started or joined build (200 or 202) against the free tier; a caller's repeat is free.
    private func charge(_ response: HTTPResponse, owner: ResearchOwner, requestId: String) async {
        guard response.status < 400,
            !response.headers.contains(where: { $0.0 == "X-Research-Turn" && $0.1 == "replayed" })
        else { return }
        do {
            try await quota.record(userId: owner.userId, deviceId: owner.deviceId, kind: "memo")
        } catch {
            logger.warning("usage not recorded", [LogKeys.requestId: .string(requestId), LogKeys.error: "\(error)"])
        }
    }

    struct Root: Codable, Sendable {
        let name: String
        let alias: String
        let engine: String
        let note: String
        let routes: [String]
        let disclaimer: String
    }

    static func root(_ kind: PacketKind) -> Root {
        let p = "/v1/" + kind.rawValue
        return Root(
            name: kind.title, alias: kind == .prism ? "ubermemo" : "research", engine: engineURL,
            note:
                "A build runs as a job: POST answers the packet when today's is stored, else 202; poll GET \(p)/{ticker}.",
            routes: [
                "POST \(p)", "GET \(p)/{ticker}", "GET \(p)/{ticker}/summary", "POST \(p)/chat",
                "GET \(p)/{ticker}/export",
            ],
            disclaimer: kind == .prism
                ? "Research only. Not investment advice."
                : "Research only. Not investment advice. Posture, not buy/sell; no point price targets.")
    }
}

/// The packet routes' input rules: symbols `^[A-Z][A-Z0-9.:-]{0,15}$` after trimming and uppercasing; a build body
/// `{ticker (1…16), force?, includeMemo?|include_memo? (booleans), asOf?|as_of? (Situate, 4…32)}`; an export format.
enum PacketInput {
    static func ticker(_ raw: String?) -> String? {
        guard let t = raw?.trimmingCharacters(in: .whitespaces).uppercased(), (1...16).contains(t.count),
            let first = t.first, first.isASCII, first.isLetter,
            t.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || ".:-".contains($0)) })
        else { return nil }
        return t
    }

    static func format(_ raw: String?) -> String? {
        let format = (raw ?? "txt").lowercased()
        return ["txt", "json", "pdf"].contains(format) ? format : nil
    }

    static func badRequest(_ kind: PacketKind, _ message: String) -> HTTPResponse {
        .json(400, ["error": message, "code": "\(kind.rawValue)_bad_request"])
    }

    /// Schema failures (no ticker, a non-boolean flag, a ticker of the wrong length) → `ticker required`; an unusable
    /// ticker → `invalid ticker`; a Situate date that is not 4–32 digits and hyphens (either spelling, each checked)
    /// → `asOf must be a date (4-32 chars)`. Other keys are ignored.
    static func build(_ request: HTTPRequest, kind: PacketKind, owner: ResearchOwner)
        -> Result<PacketBuildCommand, HTTPResponse>
    {
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(request.body)),
            case .string(let raw)? = fields["ticker"], (1...16).contains(raw.unicodeScalars.count)
        else { return .failure(badRequest(kind, "ticker required")) }
        var flags: [String: Bool] = [:]
        for key in ["force", "includeMemo", "include_memo"] {
            guard let value = fields[key] else { continue }
            guard case .bool(let flag) = value else { return .failure(badRequest(kind, "ticker required")) }
            flags[key] = flag
        }
        guard let ticker = ticker(raw) else { return .failure(badRequest(kind, "invalid ticker")) }
        var asOf: String?
        if kind == .situate {
            for key in ["as_of", "asOf"] {
                guard let value = fields[key] else { continue }
                guard case .string(let date) = value, (4...32).contains(date.unicodeScalars.count),
                    date.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "-" || ("0"..."9").contains($0)) })
                else { return .failure(badRequest(kind, "asOf must be a date (4-32 chars)")) }
                asOf = date
            }
        }
        return .success(
            PacketBuildCommand(
                kind: kind, ticker: ticker, force: flags["force"] == true,
                includeMemo: flags["includeMemo"] ?? flags["include_memo"], asOf: asOf, owner: owner))
    }
}
