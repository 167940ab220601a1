/// `GET /v1/health`: both the code's keys (`ok`, `service`, `timestamp`) and the OpenAPI's (`status`, `uptime`).
public struct HealthResponse: Codable, Sendable, Equatable {
    public var ok: Bool
    public var service: String
    public var timestamp: String
    public var status: String
    public var uptime: Double

    public init(timestamp: String, uptime: Double) {
        self.ok = true
        self.service = "mapvest-api"
        self.timestamp = timestamp
        self.status = "ok"
        self.uptime = uptime
    }
}
