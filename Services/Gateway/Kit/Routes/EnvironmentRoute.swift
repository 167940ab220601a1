import Contracts
import Finance
import Foundation
import HTTPServer
import ResearchCore
import Runtime

/// `GET /v1/environment/{sector}`: a GICS sector's macro series and cited policy and demand colour, written by the
/// Research service. The sector (trimmed, 1–64 characters) resolves case-insensitively to one of the 11 GICS names or
/// an alias. A cached brief (24 h) is free and needs no identity; a miss says first what is not configured (503),
/// then is written only for a caller with a session or `X-Device-Id` and free quota left (kind `environment`,
/// counted once for the caller whose request started it), else 400/402.
struct EnvironmentRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let generateBudget: Duration
    let metering: LayerMetering

    static let identityRequired = "X-Device-Id header (or a bearer session) required to generate a brief"

    var route: Route {
        Route("GET", "/v1/environment/:sector", auth: .optional) { context in
            let raw = (context.parameters["sector"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...64).contains(raw.count) else { return .error(400, "invalid sector") }
            guard let sector = SectorAliases.canonical(raw) else { return .error(400, "unknown sector: \(raw)") }
            return await metering.cacheFirst(
                marker: "X-Environment", kind: "environment", identityRequired: Self.identityRequired, context
            ) { await ask(sector, generate: $0, context) }
        }
    }

    private func ask(_ sector: String, generate: Bool, _ context: RouteContext) async -> HTTPResponse {
        await caller.call(
            .research, EnvironmentCommand.name, key: sector,
            command: EnvironmentCommand(sector: sector, generate: generate),
            budget: generate ? generateBudget : budget, requestId: context.requestId)
    }
}
