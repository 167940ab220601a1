import Contracts
import Foundation
import HTTPServer
import Runtime

/// `GET /v1/health` and `GET /v1/config`: answered by the gateway itself, outside the rate limiter.
enum HealthRoutes {
    static func routes(configuration: GatewayConfiguration, startedAt: Date) -> [Route] {
        [
            Route("GET", "/v1/health") { _ in
                .json(
                    200,
                    HealthResponse(
                        timestamp: Timestamp.iso8601(Date()), uptime: Date().timeIntervalSince(startedAt).rounded()))
            },
            Route("GET", "/v1/config") { _ in
                .json(
                    200,
                    ConfigResponse(
                        flags: .init(liveScan: configuration.liveScan, adminLogs: configuration.adminLogs),
                        version: configuration.version))
            },
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
