import HTTPClient
import TestSupport
import Testing

/// A Briefs process and a gateway with two signed-in users (`auth` and `other`), Briefs answering: the setup every
/// Briefs route test shares. `stop()` kills both processes.
struct BriefsRouteSession {
    let gateway: GatewayProcess
    let auth: [(String, String)]
    let other: [(String, String)]
    private let briefs: ServiceProcess

    /// Starts Briefs with `env` (its upstream fakes) and a gateway named `instance-<random>`, then signs two users in.
    static func start(instance: String, env: [String: String]) async throws -> BriefsRouteSession {
        let briefs = try await ServiceProcess.start("Briefs", extra: env)
        let gateway: GatewayProcess
        do {
            gateway = try await GatewayProcess.start(instance: "\(instance)-\(UInt16.random(in: 0...9999))")
        } catch {
            briefs.kill()
            throw error
        }
        do {
            let (auth, _) = try await BriefsFakes.signIn(gateway)
            let (other, _) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            return BriefsRouteSession(gateway: gateway, auth: auth, other: other, briefs: briefs)
        } catch {
            briefs.kill()
            gateway.process.kill()
            throw error
        }
    }

    func stop() {
        briefs.kill()
        gateway.process.kill()
    }

    /// A request through the gateway as the first user, or with `headers`.
    func send(_ method: String, _ path: String, _ json: String? = nil, as headers: [(String, String)]? = nil)
        async throws -> HTTPClientResponse
    {
        try await SystemClient.send(gateway, method, path, json: json, headers: headers ?? auth)
    }

    /// Expects `status` with the flat error body `{"error": message}`.
    func expectError(_ response: HTTPClientResponse, _ status: Int, _ message: String, _ line: Int = #line) {
        #expect(response.status == status, "line \(line)")
        #expect(SystemClient.errorMessage(response) == message, "line \(line)")
    }
}
