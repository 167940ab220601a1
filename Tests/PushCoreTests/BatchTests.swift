import Contracts
import Testing

@testable import PushCore

extension PushPlanningTests {
    /// One batch's lifecycle (`HandoffBatch`): the order of the actions is the lock discipline.
    @Suite struct HandoffBatchTests {
        /// Drives a batch through claim, pace, lock and revalidation with the given groups, all valid unless `valid`.
        private func throughRevalidation(
            _ batch: inout HandoffBatch, groups: [DeliveryGroup], valid: Set<String>? = nil
        ) -> HandoffBatch.Action {
            _ = batch.start()
            _ = batch.selected(groups.map(\.expoToken))
            _ = batch.claimed(ClaimDecision(groups: groups))
            _ = batch.paced()
            _ = batch.locked()
            return batch.revalidated(valid ?? Set(groups.map(\.id)))
        }

        @Test func aFullBatchLocksSortedDistinctTokensAfterClaimingAndUnlocksLast() {
            var batch = HandoffBatch(.after("tok_0"), dispatchEnabled: true)
            #expect(batch.start() == .select(.after("tok_0")))
            #expect(batch.selected(["tok_c", "tok_a", "tok_b", "tok_a"]) == .claim(["tok_a", "tok_b", "tok_c"]))
            // Two installations of one physical token cannot both be claimed, but the locks stay distinct anyway.
            let groups = [group(3, token: "tok_c"), group(1, token: "tok_a"), group(2, token: "tok_b")]
            #expect(batch.claimed(ClaimDecision(groups: groups, busy: ["tok_z"], delivered: 1)) == .pace(messages: 3))
            #expect(batch.paced() == .lock(["tok_a", "tok_b", "tok_c"]))
            #expect(batch.locked() == .revalidate(groups))
            #expect(batch.revalidated(["delivery_3", "delivery_2"]) == .send([groups[0], groups[2]]))
            let tickets: [ExpoTicket] = [.ok(id: "t3"), .deviceNotRegistered]
            let work = FinalizePlan(groups: groups, sent: [groups[0], groups[2]], tickets: tickets)
            #expect(batch.handedOff(tickets) == .finalize(work, attempt: 1))
            #expect(batch.finalized() == .unlock(["tok_a", "tok_b", "tok_c"], finalized: true))
            var expected = BatchTally()
            expected.selected = ["tok_c", "tok_a", "tok_b", "tok_a"]
            expected.busy = ["tok_z"]
            expected.skipped = 2  // one delivered, one lost its lease or consent
            expected.successes = 1
            expected.failures = 1
            expected.invalid = 1
            expected.failureReason = .rejected
            #expect(batch.unlocked() == .finish(expected))
        }

        @Test func locksAreSortedByBytesNotByLocale() {
            var batch = HandoffBatch(.tokens([]), dispatchEnabled: true)
            _ = batch.start()
            #expect(batch.selected(["b", "B", "a", "é", "Z"]) == .claim(["B", "Z", "a", "b", "é"]))
        }

        @Test func nothingSelectedOrNothingClaimedEndsBeforeAnyLock() {
            var empty = HandoffBatch(.after(nil), dispatchEnabled: true)
            _ = empty.start()
            #expect(empty.selected([]) == .finish(BatchTally()))

            var busy = HandoffBatch(.tokens(["tok_1", "tok_2"]), dispatchEnabled: true)
            #expect(busy.start() == .select(.tokens(["tok_1", "tok_2"])))
            #expect(busy.selected(["tok_1", "tok_2"]) == .claim(["tok_1", "tok_2"]))
            guard case .finish(let tally) = busy.claimed(ClaimDecision(busy: ["tok_1"], delivered: 1)) else {
                Issue.record("a batch with nothing claimed must finish")
                return
            }
            #expect(tally.selected == ["tok_1", "tok_2"] && tally.busy == ["tok_1"] && tally.skipped == 1)
            #expect(tally.successes == 0 && tally.failures == 0)
        }

        @Test func aClosedGateNeitherPacesNorSendsAndEveryMessageFailsAsDisabled() {
            let groups = [group(1), group(2)]
            var batch = HandoffBatch(.after(nil), dispatchEnabled: false)
            _ = batch.start()
            _ = batch.selected(groups.map(\.expoToken))
            #expect(batch.claimed(ClaimDecision(groups: groups)) == .pace(messages: 0))
            _ = batch.paced()
            _ = batch.locked()
            #expect(batch.revalidated(Set(groups.map(\.id))) == .block(groups))
            let disabled: [ExpoTicket] = [.failed(reason: .disabled), .failed(reason: .disabled)]
            #expect(
                batch.blocked() == .finalize(FinalizePlan(groups: groups, sent: groups, tickets: disabled), attempt: 1))
            #expect(batch.tally.failures == 2 && batch.tally.successes == 0 && batch.tally.failureReason == .disabled)
        }

        @Test func whenNothingIsStillValidNothingIsSentButTheClaimsAreStillFinalized() {
            let groups = [group(1), group(2)]
            for enabled in [true, false] {
                var batch = HandoffBatch(.after(nil), dispatchEnabled: enabled)
                #expect(throughRevalidation(&batch, groups: groups, valid: []) == .send([]))
                #expect(
                    batch.handedOff([]) == .finalize(FinalizePlan(groups: groups, sent: [], tickets: []), attempt: 1))
                #expect(batch.tally.skipped == 2 && batch.tally.failures == 0)
            }
        }

        @Test func finalizeIsTriedThreeTimesWithBackoffThenTheLeasesAreLeftToExpire() {
            let groups = [group(1)]
            var batch = HandoffBatch(.after(nil), dispatchEnabled: true)
            _ = throughRevalidation(&batch, groups: groups)
            let work = FinalizePlan(groups: groups, sent: groups, tickets: [.ok(id: "t")])
            #expect(batch.handedOff([.ok(id: "t")]) == .finalize(work, attempt: 1))
            #expect(batch.finalizeFailed() == .backOff(.milliseconds(50)))
            #expect(batch.backedOff() == .finalize(work, attempt: 2))
            #expect(batch.finalizeFailed() == .backOff(.milliseconds(100)))
            #expect(batch.backedOff() == .finalize(work, attempt: 3))
            #expect(batch.finalizeFailed() == .unlock(["tok_1"], finalized: false))
            guard case .finish(let tally) = batch.unlocked() else {
                Issue.record("unlock must end the batch")
                return
            }
            // The handoff happened: its counts stand even though the bookkeeping did not.
            #expect(tally.successes == 1)
        }

        @Test func aResultReportedOutOfOrderIsABug() async {
            // Session locks before the claim would break the lock discipline: the machine refuses.
            await #expect(processExitsWith: .failure) {
                var batch = HandoffBatch(.after(nil), dispatchEnabled: true)
                _ = batch.start()
                _ = batch.locked()
            }
        }

        @Test func aSecondFinalizeAttemptCanSucceed() {
            var batch = HandoffBatch(.after(nil), dispatchEnabled: true)
            _ = throughRevalidation(&batch, groups: [group(1)])
            _ = batch.handedOff([.ok(id: nil)])
            _ = batch.finalizeFailed()
            _ = batch.backedOff()
            #expect(batch.finalized() == .unlock(["tok_1"], finalized: true))
        }
    }
}

extension PushPlanningTests {
    /// A request's pages and retry rounds (`DeliveryRun`), on a clock the test moves.
    @Suite struct DeliveryRunTests {
        let t0 = ContinuousClock.now

        private func page(_ tokens: [String], busy: [String] = []) -> BatchOutcome {
            var tally = BatchTally()
            tally.selected = tokens
            tally.busy = busy
            return BatchOutcome(tally)
        }

        @Test func pagesFollowTheCursorUntilAShortPage() {
            var run = DeliveryRun(batchSize: 2, patience: .seconds(100))
            #expect(run.next(now: t0, cancelled: false) == .batch(.after(nil)))
            run.finished(page(["a", "b"]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .batch(.after("b")))
            run.finished(page(["c", "d"]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .batch(.after("d")))
            run.finished(page(["e"]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .finish(unavailable: 0))
        }

        @Test func anEmptyFullSizedPageEndsToo() {
            var run = DeliveryRun(batchSize: 2, patience: .seconds(100))
            _ = run.next(now: t0, cancelled: false)
            run.finished(page([]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .finish(unavailable: 0))
        }

        @Test func busyTokensAreRetriedSortedInChunksWithBackoffUntilDone() {
            var run = DeliveryRun(batchSize: 2, patience: .seconds(100))
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["e", "c"], busy: ["e", "c"]), now: t0)
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["a"], busy: ["a"]), now: t0)
            // Round 1: 50 ms, then the three tokens in byte order, two at a time, without looking at the clock.
            #expect(run.next(now: t0, cancelled: false) == .sleep(.milliseconds(50)))
            #expect(run.next(now: t0, cancelled: false) == .batch(.tokens(["a", "c"])))
            run.finished(page(["a", "c"], busy: ["c"]), now: t0)
            #expect(run.next(now: t0 + .seconds(500), cancelled: true) == .batch(.tokens(["e"])))
            run.finished(page(["e"]), now: t0)
            // Round 2: only "c" is left.
            #expect(run.next(now: t0 + .seconds(1), cancelled: false) == .sleep(.milliseconds(100)))
            #expect(run.next(now: t0, cancelled: false) == .batch(.tokens(["c"])))
            run.finished(page(["c"]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .finish(unavailable: 0))
        }

        @Test func roundsStopAtTheDeadlineCountedFromTheEndOfThePages() {
            var run = DeliveryRun(batchSize: 100, patience: .seconds(10))
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["a", "b"], busy: ["a", "b"]), now: t0)
            let pagesEnd = t0 + .seconds(5)
            // The last sleep is cut to the deadline.
            #expect(run.next(now: pagesEnd, cancelled: false) == .sleep(.milliseconds(50)))
            _ = run.next(now: pagesEnd, cancelled: false)
            run.finished(page(["a", "b"], busy: ["a", "b"]), now: pagesEnd)
            #expect(run.next(now: pagesEnd + .milliseconds(9_950), cancelled: false) == .sleep(.milliseconds(50)))
            _ = run.next(now: pagesEnd, cancelled: false)
            run.finished(page(["a", "b"], busy: ["b"]), now: pagesEnd)
            #expect(run.next(now: pagesEnd + .seconds(10), cancelled: false) == .finish(unavailable: 1))
        }

        @Test func backoffDoublesFrom50msUpTo2s() {
            #expect(
                (1...8).map(DeliveryRun.retryDelay)
                    == [50, 100, 200, 400, 800, 1600, 2000, 2000].map {
                        Duration.milliseconds($0)
                    })
        }

        @Test func aFailingDatabaseIsRetriedUntilPatienceThenThePagesAreAbandoned() {
            var run = DeliveryRun(batchSize: 2, patience: .seconds(10))
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["a", "b"], busy: ["a"]), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .batch(.after("b")))
            run.finished(BatchOutcome(failed: .after("b")), now: t0)
            #expect(run.next(now: t0, cancelled: false) == .sleep(.milliseconds(50)))
            #expect(run.next(now: t0, cancelled: false) == .batch(.after("b")))
            run.finished(BatchOutcome(failed: .after("b")), now: t0 + .seconds(6))
            #expect(run.next(now: t0, cancelled: false) == .sleep(.milliseconds(100)))
            #expect(run.next(now: t0, cancelled: false) == .batch(.after("b")))
            // The deadline runs from the first failure in a row.
            run.finished(BatchOutcome(failed: .after("b")), now: t0 + .seconds(10))
            #expect(run.next(now: t0 + .seconds(10), cancelled: false) == .abandonPages)
            // What was busy before is still retried.
            #expect(run.next(now: t0 + .seconds(10), cancelled: false) == .sleep(.milliseconds(50)))
            #expect(run.next(now: t0, cancelled: false) == .batch(.tokens(["a"])))
        }

        @Test func aSuccessfulPageResetsTheFailureDeadline() {
            var run = DeliveryRun(batchSize: 1, patience: .seconds(10))
            _ = run.next(now: t0, cancelled: false)
            run.finished(BatchOutcome(failed: .after(nil)), now: t0)
            _ = run.next(now: t0, cancelled: false)
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["a"]), now: t0 + .seconds(9))
            _ = run.next(now: t0, cancelled: false)
            run.finished(BatchOutcome(failed: .after("a")), now: t0 + .seconds(15))
            #expect(run.next(now: t0, cancelled: false) == .sleep(.milliseconds(50)))
        }

        @Test func aFailedRetryBatchKeepsItsTokens() {
            var run = DeliveryRun(batchSize: 10, patience: .seconds(10))
            _ = run.next(now: t0, cancelled: false)
            run.finished(page(["a"], busy: ["a"]), now: t0)
            _ = run.next(now: t0, cancelled: false)
            #expect(run.next(now: t0, cancelled: false) == .batch(.tokens(["a"])))
            run.finished(BatchOutcome(failed: .tokens(["a"])), now: t0)
            #expect(run.retry == ["a"])
            #expect(run.next(now: t0, cancelled: false) == .sleep(.milliseconds(100)))
        }

        @Test func cancellationStopsBeforeTheNextPageOrRound() {
            var pages = DeliveryRun(batchSize: 1, patience: .seconds(10))
            _ = pages.next(now: t0, cancelled: false)
            pages.finished(page(["a"], busy: ["a"]), now: t0)
            #expect(pages.next(now: t0, cancelled: true) == .finish(unavailable: 1))

            var first = DeliveryRun(batchSize: 1, patience: .seconds(10))
            #expect(first.next(now: t0, cancelled: true) == .finish(unavailable: 0))
        }
    }
}
