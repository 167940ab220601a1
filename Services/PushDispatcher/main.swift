import Contracts
import Messaging
import PushAdapters
import PushCore
import Runtime
import ServiceKit

/// The PushDispatcher: owns the push tables (schema `push`), answers the `/v1/push/*` commands and hands
/// notification requests to Expo (docs/COMPATIBILITY.md#push). It verifies no JWT (the gateway does), so it needs no
/// `SESSION_SIGNING_KEY`.
///
/// Postgres: connect directly or through a SESSION-mode pooler. Handoffs hold session-level advisory locks on a
/// reserved connection through the Expo call; a transaction-mode PgBouncer would break them.
await ServiceMain.run(name: "PushDispatcher", defaultAdminPort: 9105) { context in
    let configuration = PushConfiguration(context.environment)
    let logger = context.logger
    let push = try await PushRuntime.make(
        configuration: configuration, logger: logger, http: context.http,
        onHeartbeat: DeviceFixes(context: context).publish)
    var parts: [any Service] = [push.maintenance]
    if configuration.servesCommands {
        parts.append(
            try CommandRunner(
                configuration: context.kafka, service: .push, producer: context.producer,
                maxInFlight: configuration.commandMaxInFlight, logger: logger, handler: push.commands.handle))
    }
    if configuration.dispatches {
        let dispatcher = push.dispatcher
        parts.append(
            try PushRequestIntake(
                configuration: context.kafka, topic: configuration.requestsTopic, groupId: configuration.dispatchGroup,
                producer: context.producer, maxInFlight: configuration.requestMaxInFlight, logger: logger
            ) { request in
                await publishEvents(dispatcher.deliver(request), context: context)
            })
    }
    logger.info(
        "push dispatcher configured",
        [
            LogKeys.pushSchema: .string(configuration.schema),
            LogKeys.pushCommands: .bool(configuration.servesCommands),
            LogKeys.pushDispatch: .bool(configuration.dispatches),
            LogKeys.pushMaxConcurrentHandoffs: .int(configuration.maxConcurrentHandoffs),
            LogKeys.pushLeaseMs: .double(configuration.lease.inMilliseconds),
            LogKeys.expoPacePerSecond: .int(configuration.pacePerSecond),
            LogKeys.expoDispatchEnabled: .bool(configuration.dispatchEnabled),
        ])
    // Stopped in reverse: intake and commands drain first, then maintenance.
    return parts
}

/// `mapvest.push.handed_off` / `mapvest.push.failed`: counts per event kind, keyed by the request id. No tokens.
@Sendable func publishEvents(_ summary: DeliverySummary, context: ServiceContext) async {
    let (handedOff, failed) = summary.events
    if let handedOff {
        try? await context.emit(
            type: PushHandedOffEvent.type, schemaVersion: PushHandedOffEvent.schemaVersion, key: summary.requestId,
            data: handedOff)
    }
    if let failed {
        try? await context.emit(
            type: PushFailedEvent.type, schemaVersion: PushFailedEvent.schemaVersion, key: summary.requestId,
            data: failed)
    }
}
