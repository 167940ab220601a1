import Kafka
import Testing

@Suite("Producer lifecycle (no broker)")
struct ProducerLifecycleTests {
    let start = ContinuousClock.now
    let tick = ProducerLifecycle.livenessTick

    /// A lifecycle whose liveness thread found the brokers unreachable (one quiet tick, one refused probe).
    func brokersDown() -> ProducerLifecycle {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.livenessTurn(now: start + tick) == .probe(pending: nil))
        #expect(lifecycle.probed(.unreachable, pending: nil, now: start) == .down)
        return lifecycle
    }

    @Test func runsAcceptingSendsAndPollsUntilClosed() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.phase == .running)
        #expect(lifecycle.acceptsSends)
        #expect(lifecycle.send() == .enqueue)
        #expect(lifecycle.pollTurn() == .poll)
        #expect(lifecycle.pollTurn() == .poll)
    }

    @Test func closeRefusesSendsThenThePollThreadFlushesAndStops() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.close(flushTimeout: .seconds(10)) == .stopPolling)
        #expect(lifecycle.phase == .closing(flushTimeout: .seconds(10)))
        #expect(!lifecycle.acceptsSends)
        #expect(lifecycle.send() == .refuse(.shutDown))
        #expect(lifecycle.pollTurn() == .flush(timeout: .seconds(10)))
        #expect(lifecycle.phase == .flushing)
        #expect(lifecycle.send() == .refuse(.shutDown))
        #expect(lifecycle.stopped() == true)
        #expect(lifecycle.phase == .closed)
        #expect(lifecycle.send() == .refuse(.shutDown))
    }

    @Test func aSecondCloseOnlyReplacesTheFlushBoundBeforeTheFlushBegins() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.close(flushTimeout: .seconds(10)) == .stopPolling)
        #expect(lifecycle.close(flushTimeout: .seconds(5)) == .none)
        #expect(lifecycle.pollTurn() == .flush(timeout: .seconds(5)))
        #expect(lifecycle.close(flushTimeout: .seconds(1)) == .none)
        #expect(lifecycle.phase == .flushing)
        #expect(lifecycle.stopped() == true)
        #expect(lifecycle.close(flushTimeout: .seconds(1)) == .none)
        #expect(lifecycle.phase == .closed)
    }

    @Test func illegalEventsChangeNothing() {
        var lifecycle = ProducerLifecycle(now: start)
        _ = lifecycle.close(flushTimeout: .seconds(1))
        _ = lifecycle.pollTurn()
        // A second poll thread, or a poll turn after the flush began, has nothing to do.
        #expect(lifecycle.pollTurn() == .exit)
        #expect(lifecycle.stopped() == true)
        #expect(lifecycle.stopped() == false)
        #expect(lifecycle.pollTurn() == .exit)
        #expect(lifecycle.phase == .closed)
        // A stop reported before any close still ends everything.
        var early = ProducerLifecycle(now: start)
        #expect(early.stopped() == true)
        #expect(early.send() == .refuse(.shutDown))
        #expect(early.close(flushTimeout: .seconds(1)) == .none)
        #expect(early.livenessTurn(now: start) == .stop)
    }

    @Test func closeWhileSendsArePendingStillCountsTheirDeliveries() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.send() == .enqueue)
        #expect(lifecycle.send() == .enqueue)
        _ = lifecycle.close(flushTimeout: .seconds(10))
        guard case .flush(let timeout) = lifecycle.pollTurn() else {
            Issue.record("expected a flush")
            return
        }
        let deadline = start + timeout
        // Two pending: flush in slices of at most 100 ms; their reports still count as proof of life.
        #expect(lifecycle.flushStep(outstanding: 2, deadline: deadline, now: start) == .flush(milliseconds: 100))
        lifecycle.delivered()
        #expect(lifecycle.flushStep(outstanding: 1, deadline: deadline, now: start) == .flush(milliseconds: 100))
        lifecycle.delivered()
        #expect(lifecycle.deliveries == 2)
        #expect(lifecycle.flushStep(outstanding: 0, deadline: deadline, now: start) == .done)
        // The last slice is cut to the deadline; past it the flush is incomplete.
        let late = deadline - .milliseconds(30)
        #expect(lifecycle.flushStep(outstanding: 1, deadline: deadline, now: late) == .flush(milliseconds: 30))
        #expect(lifecycle.flushStep(outstanding: 1, deadline: deadline, now: deadline) == .incomplete)
    }

    @Test func aFlushGivesUpAtOnceWhileNoBrokerIsReachable() {
        var lifecycle = brokersDown()
        _ = lifecycle.close(flushTimeout: .seconds(10))
        _ = lifecycle.pollTurn()
        #expect(lifecycle.flushStep(outstanding: 3, deadline: start + .seconds(10), now: start) == .incomplete)
        #expect(lifecycle.flushStep(outstanding: 0, deadline: start + .seconds(10), now: start) == .done)
    }

    @Test func aQuietTickProbesAndAFailedProbeRefusesSendsUntilADelivery() {
        var lifecycle = ProducerLifecycle(now: start)
        // Before the tick: sleep until it.
        #expect(lifecycle.livenessTurn(now: start) == .sleep(until: start + tick))
        var down = brokersDown()
        #expect(down.brokersDown)
        #expect(!down.acceptsSends)
        #expect(down.send() == .refuse(.brokersDown))
        #expect(down.send() == .refuse(.brokersDown))
        // Still down after another failed probe: nothing new to notify.
        #expect(down.livenessTurn(now: start + tick * 2) == .probe(pending: nil))
        #expect(down.probed(.unreachable, pending: nil, now: start) == nil)
        // A delivery (the flush of an earlier message) is proof of life: the next tick marks them up, no probe.
        down.delivered()
        #expect(down.livenessTurn(now: start + tick * 3) == .notify(.up))
        #expect(down.send() == .enqueue)
        lifecycle.delivered()
        #expect(lifecycle.livenessTurn(now: start + tick) == .sleep(until: start + tick * 2))
    }

    @Test func unansweredProbesRefuseSendsOnlyAfterTheSilenceWindow() {
        var lifecycle = ProducerLifecycle(now: start)
        var at = start
        var transitions: [BrokerLiveness.Transition?] = []
        // A frozen broker: every probe goes unanswered (probe timeout 400 ms after each tick).
        while at < start + .seconds(2) {
            at += tick
            guard case .probe = lifecycle.livenessTurn(now: at) else { continue }
            at += .milliseconds(400)
            transitions.append(lifecycle.probed(.unanswered, pending: nil, now: at))
            if lifecycle.brokersDown { break }
        }
        #expect(transitions.dropLast().allSatisfy { $0 == nil })
        #expect(transitions.last == .down)
        #expect(transitions.count >= 2)
        #expect(at - start >= .seconds(1) && at - start <= .milliseconds(1400))
        #expect(lifecycle.send() == .refuse(.brokersDown))
    }

    @Test func aSuccessfulProbeMarksTheBrokersUpAgain() {
        var lifecycle = brokersDown()
        #expect(lifecycle.livenessTurn(now: start + tick * 2) == .probe(pending: nil))
        #expect(lifecycle.probed(.answered, pending: nil, now: start) == .up)
        #expect(lifecycle.acceptsSends)
    }

    @Test func anAllBrokersDownReportProbesAtOnceAndWakesOnlyOnce() {
        var lifecycle = ProducerLifecycle(now: start)
        #expect(lifecycle.allBrokersDownReported() == true)
        #expect(lifecycle.allBrokersDownReported() == false)
        // Hinted: probe before the tick is due.
        #expect(lifecycle.livenessTurn(now: start) == .probe(pending: nil))
        // An unanswered probe prompted by librdkafka's own report is certain: down at once.
        #expect(lifecycle.probed(.unanswered, pending: nil, now: start) == .down)
        #expect(lifecycle.send() == .refuse(.brokersDown))
        // The hint was consumed: the next turn sleeps until the tick, and a new report wakes the thread again.
        #expect(lifecycle.livenessTurn(now: start) == .sleep(until: start + tick))
        #expect(lifecycle.allBrokersDownReported() == true)
    }

    @Test func aDeliveryDuringAHintedProbeKeepsTheBrokersUp() {
        var lifecycle = ProducerLifecycle(now: start)
        _ = lifecycle.allBrokersDownReported()
        #expect(lifecycle.livenessTurn(now: start) == .probe(pending: nil))
        lifecycle.delivered()
        #expect(lifecycle.probed(.unreachable, pending: nil, now: start) == nil)
        #expect(lifecycle.acceptsSends)
    }

    @Test func theLivenessThreadRunsThroughTheFlushAndStopsWithThePollThread() {
        var lifecycle = ProducerLifecycle(now: start)
        _ = lifecycle.close(flushTimeout: .seconds(10))
        _ = lifecycle.pollTurn()
        #expect(lifecycle.livenessTurn(now: start + tick) == .probe(pending: nil))
        #expect(lifecycle.probed(.unreachable, pending: nil, now: start) == .down)
        #expect(lifecycle.stopped() == true)
        #expect(lifecycle.livenessTurn(now: start + tick * 2) == .stop)
    }

    @Test func refusalsCarryTheSameErrorsAsBefore() {
        let shutDown = ProducerLifecycle.Refusal.shutDown.error
        #expect(shutDown.code == .state)
        #expect(!shutDown.isRetriable)
        let down = ProducerLifecycle.Refusal.brokersDown.error
        #expect(down.code == .allBrokersDown)
        #expect(down.isRetriable)
    }
}

@Suite("Producer delivery box (no broker)")
struct DeliveryBoxTests {
    let success: Result<KafkaProducer.Delivery, KafkaError> = .success((partition: 2, offset: 7))

    @Test func aReportCompletesTheWaitingSend() async throws {
        let box = DeliveryBox(topic: "t", state: ProducerState())
        let delivery = try await box.wait { box in box.complete(success) }
        #expect(delivery.partition == 2 && delivery.offset == 7)
        box.complete(.failure(KafkaError(code: .timedOut)))  // a second report is dropped
    }

    @Test func anEnqueueFailureIsThrown() async {
        let box = DeliveryBox(topic: "t", state: ProducerState())
        await #expect(throws: KafkaError.self) {
            _ = try await box.wait { _ throws(KafkaError) in throw KafkaError(code: .invalidArgument) }
        }
    }

    /// A task cancelled while waiting resumes at once with `CancellationError`; the report arriving later finds the
    /// box done (a double resume would trap).
    @Test func cancellationWhileWaitingResumesOnceAndTheLateReportIsDropped() async throws {
        let box = DeliveryBox(topic: "t", state: ProducerState())
        let enqueued = Gate()
        let waiting = Task { try await box.wait { _ in enqueued.release() } }
        while !enqueued.isOpen { await Task.yield() }
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(1))
        box.complete(success)
        box.complete(success)
    }

    @Test func aTaskCancelledBeforeSendingStillEnqueuesAndResumesAtOnce() async throws {
        let box = DeliveryBox(topic: "t", state: ProducerState())
        let enqueued = Gate()
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await box.wait { _ in enqueued.release() }
        }
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(enqueued.isOpen)
        box.complete(success)
    }

    @Test func aReportAndACancellationRacingResumeExactlyOnce() async throws {
        for _ in 0..<200 {
            let box = DeliveryBox(topic: "t", state: ProducerState())
            let enqueued = Gate()
            let waiting = Task { try await box.wait { _ in enqueued.release() } }
            while !enqueued.isOpen { await Task.yield() }
            async let report: Void = box.complete(success)
            waiting.cancel()
            await report
            switch await waiting.result {
            case .success(let delivery): #expect(delivery.offset == 7)
            case .failure(let error): #expect(error is CancellationError)
            }
        }
    }
}
