import Messaging
import ServiceKit

/// The Nearby service: joins its consumer group on `mapvest.nearby.commands.v1` and serves health and metrics.
/// Its domain commands arrive with a later issue; until then every command is answered 404, as an unknown route.
await ServiceMain.run(name: "Nearby", defaultAdminPort: 9102) { context in
    [
        try CommandRunner(configuration: context.kafka, service: .nearby, producer: context.producer, logger: context.logger) {
            command in
            context.logger.warning("unknown command", ["command": .string(command.name)])
            return .error(404, "not found")
        }
    ]
}
