import Contracts
import Messaging
import Testing

@testable import GatewayKit

/// Which commands the gateway marks as hedgeable reads: only reads, never a command with side effects.
@Suite("Gateway: idempotent reads (in process)")
struct IdempotentReadsTests {
    struct Empty: Encodable {}

    func sent(_ name: String) async -> OutgoingCommand? {
        let transport = RecordingTransport()
        _ = await ServiceCaller(client: transport).call(
            .identify, name, key: "k", command: Empty(), budget: .seconds(1), requestId: "r")
        return transport.commands.first
    }

    @Test func readsAreMarkedAndCommandsWithEffectsAreNot() async {
        for read in [ResolveComparableCommand.name, NearbyCommand.name, RatingCommand.name, ListFindsCommand.name] {
            #expect(await sent(read)?.isIdempotentRead == true, "\(read)")
        }
        // Sent once: commands with effects, and a lookup paid per call (an article's text).
        for once in [IdentifyPhotoCommand.name, ReplayFindsCommand.name, "push.register.v1", "news.read.v1"] {
            #expect(await sent(once)?.isIdempotentRead == false, "\(once)")
        }
    }

    @Test func theListHoldsOnlyReads() {
        // Every hedgeable command is a get, list, summary, intent or lookup by its name; writes never appear.
        for name in IdempotentReads.commands {
            let verb = name.split(separator: ".").dropLast().last.map(String.init) ?? ""
            #expect(
                ["get", "list", "summary", "intent", "resolve-comparable"].contains(verb), "\(name) is not a read")
        }
    }
}
