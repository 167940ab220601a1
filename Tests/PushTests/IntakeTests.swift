import Contracts
import ExpoPush
import Foundation
import Kafka
import PushAdapters
import PushCore
import Testing

/// Requests published without a header (as `EventPublisher.publish` does) are accepted; other commands and
/// undecodable bodies are rejected (dead-lettered); the events carry counts only.
@Suite struct IntakeTests {
    static func message(_ value: [UInt8], headers: [KafkaHeader] = []) -> KafkaMessage {
        KafkaMessage(topic: Topics.pushRequests, partition: 0, offset: 1, key: nil, value: value, headers: headers)
    }

    @Test func decodesWithOrWithoutTheCommandHeader() throws {
        let request = pushRequest(users: ["usr_a"])
        let body = Array(try JSONEncoder().encode(request))
        #expect(try PushRequestIntake.decode(Self.message(body)).get() == request)
        #expect(
            try PushRequestIntake.decode(
                Self.message(body, headers: [KafkaHeader(MessageHeaders.command, PushRequest.name)])
            ).get() == request)
        #expect(throws: PushRequestRejection.wrongCommand) {
            try PushRequestIntake.decode(
                Self.message(body, headers: [KafkaHeader(MessageHeaders.command, "identify.photo.v1")])
            ).get()
        }
        #expect(throws: PushRequestRejection.undecodable) {
            try PushRequestIntake.decode(Self.message(Array("{".utf8))).get()
        }
        var empty = request
        empty.userIds = []
        #expect(throws: PushRequestRejection.invalid) {
            try PushRequestIntake.decode(Self.message(Array(try JSONEncoder().encode(empty)))).get()
        }
    }

    @Test func eventsCountPerEventKindWithoutIdentifiers() throws {
        var summary = DeliverySummary(requestId: "r1", eventKind: "identify_done", eventKey: "identify_done")
        #expect(summary.events.handedOff == nil && summary.events.failed == nil)
        summary.successes = 3
        summary.failures = 2
        summary.invalidTokens = 1
        summary.failureReason = .rejected
        #expect(
            summary.events.handedOff
                == PushHandedOffEvent(eventKind: "identify_done", eventKey: "identify_done", count: 3))
        #expect(
            summary.events.failed
                == PushFailedEvent(
                    eventKind: "identify_done", eventKey: "identify_done", count: 2, invalidTokens: 1,
                    reason: "expo_rejected"))
        let json = String(decoding: try JSONEncoder().encode(summary.events.failed), as: UTF8.self)
        #expect(!json.contains("r1") && !json.contains("push_") && !json.contains("ExponentPushToken"))
    }
}
