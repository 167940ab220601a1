import Contracts
import Kafka
import Runtime

/// The topics every binary may use: each service's command topic, push requests, Identify's effects, events and the
/// dead-letter topic. Partitions: `KAFKA_COMMAND_PARTITIONS` (default 8) for command and push topics,
/// `KAFKA_EVENT_PARTITIONS` (default 8) for events, 1 for dead letters.
public func standardTopicSpecs(environment: Environment = Environment()) -> [KafkaAdmin.TopicSpec] {
    let commandPartitions = max(1, environment.get("KAFKA_COMMAND_PARTITIONS", default: Int32(8)))
    let eventPartitions = max(1, environment.get("KAFKA_EVENT_PARTITIONS", default: Int32(8)))
    var specs = ServiceName.allCases.map { KafkaAdmin.TopicSpec(name: $0.commandTopic, partitions: commandPartitions) }
    specs.append(KafkaAdmin.TopicSpec(name: Topics.pushRequests, partitions: commandPartitions))
    specs.append(KafkaAdmin.TopicSpec(name: Topics.identifyEffects, partitions: commandPartitions))
    specs.append(KafkaAdmin.TopicSpec(name: Topics.events, partitions: eventPartitions))
    specs.append(KafkaAdmin.TopicSpec(name: Topics.deadLetter, partitions: 1))
    var seen = Set<String>()
    return specs.filter { seen.insert($0.name).inserted }
}

/// Creates the standard topics that are missing (see `standardTopicSpecs`). Runs off the cooperative pool.
public func ensureStandardTopics(
    configuration: KafkaConfiguration, logger: Logger, environment: Environment = Environment(),
    timeout: Duration = .seconds(30)
) async throws {
    try await KafkaAdmin.ensureTopics(
        configuration: configuration, specs: standardTopicSpecs(environment: environment), timeout: timeout,
        logger: logger)
}
