import Contracts
import Foundation
import HTTPClient
import Kafka
import Postgres
import Runtime
import TestSupport

/// Devices for the movement tests: a PushDispatcher that hands location heartbeats to Briefs, and push registrations
/// made through the gateway.
enum Devices {
    /// A one-connection pool on the test stack's Postgres and a producer, for tests that read Briefs' tables and
    /// publish its commands.
    static func briefsStoreAndProducer() async throws -> (PostgresPool, KafkaProducer) {
        let db = try await PostgresPool.make(
            url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
        let producer = try KafkaProducer.make(
            configuration: KafkaConfiguration.fromEnvironment(Environment()), logger: Logger(label: "t", level: .error))
        return (db, producer)
    }

    /// A PushDispatcher (commands role, its own schema, Expo unreachable) publishing each heartbeat's fix to Briefs.
    static func dispatcher(schema: String) async throws -> ServiceProcess {
        try await ServiceProcess.start(
            "PushDispatcher",
            extra: [
                "PUSH_ROLES": "commands", "PUSH_SCHEMA": "\(schema)_\(UInt32.random(in: 0...UInt32.max))",
                "EXPO_BASE_URL": "http://127.0.0.1:1", "ENABLE_PUSH_SCHEDULER": "1",
            ])
    }

    /// Registers a fresh Expo token for the signed-in caller and returns its registration id (`push_…`).
    static func register(_ gateway: GatewayProcess, auth: [(String, String)]) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let response = try await SystemClient.send(
                gateway, "POST", "/v1/push/register",
                json: "{\"token\":\"ExponentPushToken[dev\(UInt64.random(in: 0...UInt64.max))]\",\"platform\":\"ios\"}",
                headers: auth)
            if response.status == 200, let id = SystemClient.json(response)["id"] as? String { return id }
            try await Task.sleep(for: .milliseconds(300))
        }
        throw Failure("push register did not answer")
    }
}
