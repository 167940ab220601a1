// DevBroker: hosts librdkafka's mock Kafka cluster for dev and tests.
//
//   DevBroker [BOOTSTRAP_FILE] [--brokers N]
//
// BOOTSTRAP_FILE (or env KAFKA_BOOTSTRAP_FILE) receives the bootstrap string, written atomically (temp + rename)
// once the brokers listen, and is removed at exit; the string is also printed on standard output. The broker
// count comes from --brokers or env DEV_BROKER_COUNT (default 3). Records older than env DEV_BROKER_RETENTION_S
// seconds (default 30; 0 keeps everything) are deleted, so the broker's cost does not grow with use
// (`MockLogRetention`; librdkafka ≥ 2.16). Runs until SIGTERM or SIGINT.
import Foundation
import KafkaMock
import Runtime

let logger = Logger(label: "dev-broker")
let environment = Environment()

var bootstrapFile = environment.get("KAFKA_BOOTSTRAP_FILE")
var brokerCount: Int32 = environment.get("DEV_BROKER_COUNT", default: 3)
let retentionSeconds: Int = max(environment.get("DEV_BROKER_RETENTION_S", default: 30), 0)
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--brokers":
        guard let value = arguments.popFirst().flatMap({ Int32($0) }), value > 0 else {
            logger.error("--brokers needs a positive number")
            exit(2)
        }
        brokerCount = value
    case "-h", "--help":
        print("usage: DevBroker [BOOTSTRAP_FILE] [--brokers N]")
        exit(0)
    default:
        bootstrapFile = argument
    }
}

/// Writes `text` to `path` through a temporary file and a rename, so readers never see a partial string.
func writeAtomically(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let temporary = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
    try Data((text + "\n").utf8).write(to: temporary)
    guard rename(temporary.path, url.path) == 0 else {
        try? FileManager.default.removeItem(at: temporary)
        throw CocoaError(.fileWriteUnknown)
    }
}

let (signals, signalContinuation) = AsyncStream.makeStream(of: Int32.self)
let signalSources = [SIGTERM, SIGINT].map { sig -> any DispatchSourceSignal in
    signal(sig, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler { signalContinuation.yield(sig) }
    source.resume()
    return source
}

let cluster: MockKafkaCluster
do {
    cluster = try MockKafkaCluster.make(brokers: brokerCount, logger: logger)
} catch {
    logger.error("mock cluster failed to start", [LogKeys.error: "\(error)"])
    exit(1)
}
// Dev clients use a 1.5 s session timeout (fast failover); the mock's default 3 s first-join delay would expire them.
let shortFirstJoin = cluster.setInitialRebalanceDelay(.milliseconds(100))
let retention =
    retentionSeconds == 0
    ? nil
    : MockLogRetention.start(
        cluster: cluster, retention: .seconds(retentionSeconds),
        interval: .seconds(min(5, max(1, retentionSeconds / 4))),
        logger: logger)
if let bootstrapFile {
    do {
        try writeAtomically(cluster.bootstrapServers, to: bootstrapFile)
    } catch {
        logger.error("cannot write bootstrap file", [LogKeys.path: .string(bootstrapFile), LogKeys.error: "\(error)"])
        exit(1)
    }
}
FileHandle.standardOutput.write(Data((cluster.bootstrapServers + "\n").utf8))
logger.info(
    "dev broker ready",
    [
        LogKeys.kafkaBrokers: .string(cluster.bootstrapServers), LogKeys.brokers: .int(Int(brokerCount)),
        LogKeys.librdkafka: .string(MockKafkaCluster.libraryVersion), LogKeys.shortFirstJoin: .bool(shortFirstJoin),
        LogKeys.path: .string(bootstrapFile ?? ""),
    ])
if retention != nil {
    logger.info(
        "dev broker deletes records older than duration.ms", [LogKeys.durationMs: .int(retentionSeconds * 1000)])
} else if retentionSeconds > 0 {
    logger.warning("dev broker keeps every record: this librdkafka cannot delete them (the broker slows with use)")
}

for await sig in signals {
    logger.info("dev broker stopping", [LogKeys.signal: .int(Int(sig))])
    break
}
for source in signalSources { source.cancel() }
retention?.stop()
if let bootstrapFile { try? FileManager.default.removeItem(atPath: bootstrapFile) }
withExtendedLifetime(cluster) {}
