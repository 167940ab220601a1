import Contracts
import Foundation
import HTTPServer
import Runtime

/// `GET /v1/health`, `GET /v1/config` and `GET /openapi.yaml`: answered by the gateway itself, outside the rate limiter.
enum HealthRoutes {
    static func routes(configuration: GatewayConfiguration, openAPI: OpenAPIDocument, startedAt: Date) -> [Route] {
        [
            Route("GET", "/v1/health") {
                // `HealthResponse`, written by hand: this is the route load balancers hit most.
                let now = Date()
                let body =
                    #"{"ok":true,"service":"mapvest-api","timestamp":""# + Timestamp.iso8601(now)
                    + #"","status":"ok","uptime":"# + String(Int(now.timeIntervalSince(startedAt))) + "}"
                return .json(200, raw: Array(body.utf8))
            },
            Route("GET", "/v1/config") {
                .json(
                    200,
                    ConfigResponse(
                        flags: .init(liveScan: configuration.liveScan, adminLogs: configuration.adminLogs),
                        version: configuration.version))
            },
            Route("GET", OpenAPIDocument.template) { openAPI.response },
        ]
    }
}

/// `GET /v1/config` body.
struct ConfigResponse: Codable, Sendable {
    struct Flags: Codable, Sendable {
        var liveScan: Bool
        var adminLogs: Bool
    }
    var flags: Flags
    var version: String
}
