import Contracts
import Foundation
import Testing

@testable import PushCore

extension Tag {
    /// Needs no stack (no socket, no database): runs with plain `swift test`.
    @Tag static var pure: Self
}

/// The delivery planning: pure values and state machines, no socket and no database (`swift test --filter
/// PushCoreTests` runs them without the stack).
@Suite(.tags(.pure)) enum PushPlanningTests {}

func group(_ n: Int, token: String? = nil) -> DeliveryGroup {
    DeliveryGroup(id: "delivery_\(n)", tokenId: "push_\(n)", userId: "user_\(n)", expoToken: token ?? "tok_\(n)")
}

private func candidate(
    _ n: Int, lastSent: [String: JSONValue] = [:], live: Set<[String]> = []
) -> ClaimCandidate {
    ClaimCandidate(
        tokenId: "push_\(n)", userId: "user_\(n)", expoToken: "tok_\(n)", lastSent: lastSent, liveLeases: live)
}

/// A counter-based id source, so claim decisions are deterministic.
private final class Ids {
    var next = 0
    func make() -> String {
        next += 1
        return "delivery_\(next)"
    }
}

extension PushPlanningTests {
    /// What a request fans out to and what each outcome means (`DeliveryPlan`, `FinalizePlan`, `BatchTally`).
    @Suite struct DeliveryPlanTests {
        @Test func recipientsAreDistinctAndNonEmptyAndDedupeKeepsTheFirstItemOfEachSlot() {
            var request = pushRequest(users: ["u1", "", "u2", "u1"], eventKey: .dailyBrief)
            request.dedupe = [
                PushDedupe(slot: "a", key: "1"), PushDedupe(slot: "", key: "ignored"), PushDedupe(slot: "a", key: "2"),
                PushDedupe(slot: "b", key: "3"),
            ]
            let plan = DeliveryPlan(request)
            #expect(plan.userIds.sorted() == ["u1", "u2"])
            #expect(plan.dedupe == [PushDedupe(slot: "a", key: "1"), PushDedupe(slot: "b", key: "3")])
            #expect(plan.lastSentPatch == ["a": "1", "b": "3"])
            #expect(plan.eventKey == "daily_brief")
            #expect(plan.tokenId == nil)
        }

        @Test func aRequestWithoutDedupeIsDedupedByItsId() {
            var request = pushRequest(users: ["u1"], tokenId: "push_abc")
            request.dedupe = [PushDedupe(slot: "", key: "x")]
            let plan = DeliveryPlan(request)
            #expect(plan.dedupe == [PushDedupe(slot: "mapvest_request", key: request.id)])
            #expect(plan.lastSentPatch == ["mapvest_request": request.id])
            #expect(plan.tokenId == "push_abc")
        }

        @Test func deliveredWinsOverBusyAndOnlyAnEqualStringCounts() {
            var request = pushRequest(users: ["u1"])
            request.dedupe = [PushDedupe(slot: "a", key: "1"), PushDedupe(slot: "b", key: "2")]
            let plan = DeliveryPlan(request)
            #expect(plan.verdict(lastSent: ["b": .string("2")], liveLeases: [["a", "1"]]) == .delivered)
            #expect(plan.verdict(lastSent: ["a": .string("0")], liveLeases: [["b", "2"]]) == .busy)
            // A number is not the key's string; another slot's value or another key's lease does not count.
            #expect(
                plan.verdict(lastSent: ["a": .number(1), "c": .string("1")], liveLeases: [["a", "2"], ["c", "1"]])
                    == .claim)
            #expect(plan.verdict(lastSent: [:], liveLeases: []) == .claim)
        }

        @Test func aClaimMakesOneGroupPerInstallationAndOneRowPerDedupeItem() {
            var request = pushRequest(users: ["u1"])
            request.dedupe = [PushDedupe(slot: "a", key: "1"), PushDedupe(slot: "b", key: "2")]
            let plan = DeliveryPlan(request)
            let ids = Ids()
            let decision = plan.claim(
                [
                    candidate(1), candidate(2, lastSent: ["a": .string("1")]), candidate(3, live: [["b", "2"]]),
                    candidate(4),
                ],
                newId: ids.make)
            #expect(decision.delivered == 1)
            #expect(decision.busy == ["tok_3"])
            #expect(decision.groups.map(\.tokenId) == ["push_1", "push_4"])
            #expect(decision.rows.count == 4)
            for g in decision.groups {
                let rows = decision.rows.filter { $0.group == g }
                #expect(rows.map(\.slot) == ["a", "b"] && rows.map(\.key) == ["1", "2"])
            }
            let allIds = decision.groups.map(\.id) + decision.rows.map(\.claimId)
            #expect(Set(allIds).count == allIds.count)
        }

        @Test func ticketsCountAsSuccessesInvalidTokensAndFailuresWithTheLastReason() {
            var tally = BatchTally()
            tally.record([.ok(id: "t1"), .deviceNotRegistered, .failed(reason: .unavailable), .ok(id: nil)])
            #expect(tally.successes == 2 && tally.failures == 2 && tally.invalid == 1)
            #expect(tally.failureReason == .unavailable)
            tally.record([.failed(reason: .unavailable), .deviceNotRegistered])
            #expect(tally.failureReason == .rejected && tally.invalid == 2 && tally.failures == 4)
        }

        @Test func finalizeMergesAcceptedPrunesDeadAndKeepsReceiptsOnlyForMergedTicketsWithAnId() {
            let groups = (1...5).map { group($0) }
            // Group 5 lost its validity before the handoff: not sent, but its claims still go.
            let sent = Array(groups.prefix(4))
            let work = FinalizePlan(
                groups: groups, sent: sent,
                tickets: [.ok(id: "ticket_1"), .deviceNotRegistered, .ok(id: ""), .failed(reason: .rejected)])
            #expect(work.groups == groups)
            #expect(work.accepted == [groups[0], groups[2]])
            #expect(work.ticketIds == ["delivery_1": "ticket_1"])
            #expect(work.deviceNotRegistered == [groups[1]])
            #expect(work.pruned(live: ["push_2"]) == [groups[1]])
            #expect(work.pruned(live: ["push_1"]).isEmpty)
            let receipts = work.receipts(merged: ["push_1", "push_3"])
            #expect(receipts.map { [$0.ticketId, $0.tokenId] } == [["ticket_1", "push_1"]])
            #expect(work.receipts(merged: ["push_3"]).isEmpty)
        }

        @Test func missingTicketsLeaveTheRestWithoutOutcome() {
            let groups = (1...3).map { group($0) }
            let work = FinalizePlan(groups: groups, sent: groups, tickets: [.ok(id: "t")])
            #expect(work.accepted == [groups[0]] && work.deviceNotRegistered.isEmpty)
        }

        @Test func aFailedBatchRetriesGivenTokensButAFailedPageSelectsNothing() {
            let retried = BatchOutcome(failed: .tokens(["a", "b"]))
            #expect(retried.failed && retried.selected == ["a", "b"] && retried.retry == ["a", "b"])
            let page = BatchOutcome(failed: .after("x"))
            #expect(page.failed && page.selected.isEmpty && page.retry.isEmpty)
            var tally = BatchTally()
            tally.selected = ["a", "b", "c"]
            tally.busy = ["b"]
            let ok = BatchOutcome(tally)
            #expect(!ok.failed && ok.selected == ["a", "b", "c"] && ok.retry == ["b"])
        }

        @Test func theSummaryAddsBatchesAndCountsWhatIsLeftAsUnavailable() {
            var summary = DeliverySummary(requestId: "r", eventKind: "identify_done", eventKey: nil)
            var tally = BatchTally()
            tally.record([.ok(id: nil), .deviceNotRegistered])
            tally.skipped = 3
            summary.add(tally)
            summary.add(BatchTally())
            #expect(
                summary.successes == 1 && summary.failures == 1 && summary.invalidTokens == 1 && summary.skipped == 3)
            #expect(summary.failureReason == .rejected)
            summary.giveUp(0)
            #expect(summary.failures == 1)
            summary.giveUp(2)
            #expect(summary.failures == 3 && summary.failureReason == .rejected)
            var fresh = DeliverySummary(requestId: "r", eventKind: "k", eventKey: nil)
            fresh.giveUp(1)
            #expect(fresh.failureReason == .unavailable && fresh.events.failed?.reason == "expo_unavailable")
            #expect(fresh.events.handedOff == nil)
        }
    }
}

extension PushPlanningTests {
    /// What a receipts poll does with each answer (`ReceiptOutcomes`).
    @Suite struct ReceiptOutcomesTests {
        @Test func unknownIdsAreKeptForTheNextPollAndTheRestOnlyCounted() {
            let outcomes = ReceiptOutcomes(
                ticketIds: ["t1", "t2", "t3", "t4"], tokenIds: ["p1", "p2", "p3", "p4"], attempts: 1,
                receipts: ["t1": .ok, "t2": .deviceNotRegistered, "t4": .error])
            #expect(outcomes.entries.map(\.receipt) == [.ok, .deviceNotRegistered, nil, .error])
            #expect(outcomes.entries.map(\.tokenId) == ["p1", "p2", "p3", "p4"])
            #expect(outcomes.disposition == .keep(ticketIds: ["t3"], tokenIds: ["p3"]))
        }

        @Test func aBatchIsDeletedWhenAllAreKnownOrOnTheFourthPoll() {
            let known = ReceiptOutcomes(ticketIds: ["t1"], tokenIds: ["p1"], attempts: 1, receipts: ["t1": .ok])
            #expect(known.disposition == .delete(expired: 0))
            let third = ReceiptOutcomes(ticketIds: ["t1", "t2"], tokenIds: ["p1", "p2"], attempts: 3, receipts: [:])
            #expect(third.disposition == .keep(ticketIds: ["t1", "t2"], tokenIds: ["p1", "p2"]))
            let fourth = ReceiptOutcomes(ticketIds: ["t1", "t2"], tokenIds: ["p1", "p2"], attempts: 4, receipts: [:])
            #expect(fourth.disposition == .delete(expired: 2))
        }
    }
}
