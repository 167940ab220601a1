import Foundation
import TestSupport

/// A gateway process and its public base URL.
struct GatewayProcess {
    let process: ServiceProcess
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a gateway. Limits are off unless `limits` is true (routing tests must not trip the identify buckets,
    /// which key anonymous callers by IP and every test client is 127.0.0.1).
    static func start(instance: String, limits: Bool = false, extra: [String: String] = [:]) async throws
        -> GatewayProcess
    {
        let port = try freePort()
        var env = ["PORT": String(port), "GATEWAY_INSTANCE_ID": instance, "AUTH_RETURN_CODE": "1"]
        if limits {
            env["TRUSTED_PROXY_HOPS"] = "1"
        } else {
            env["GATEWAY_LIMITS"] = "off"
        }
        for (k, v) in extra { env[k] = v }
        return GatewayProcess(process: try await ServiceProcess.start("Gateway", extra: env), port: port)
    }
}
