import Kafka
import Runtime
import Testing

@Suite("Idle fetch pacer (no broker)")
struct IdleFetchPacerTests {
    let start = ContinuousClock.now
    let settings = IdleFetchPacer.Settings(
        hotFor: .seconds(2), firstGap: .milliseconds(10), maxGap: .milliseconds(100), probeLength: .milliseconds(5))

    @Test func fetchesWhileMessagesFlowAndPausesAfterAQuietSpell() {
        var pacer = IdleFetchPacer(settings: settings, now: start)
        #expect(pacer.isFetching)
        // A message every second keeps it fetching.
        for second in 1...5 {
            #expect(pacer.tick(now: start + .seconds(second)) == .none)
            #expect(pacer.activity(now: start + .seconds(second)) == .none)
        }
        #expect(pacer.tick(now: start + .milliseconds(6_999)) == .none)
        #expect(pacer.tick(now: start + .seconds(7)) == .pause)
        #expect(!pacer.isFetching)
        #expect(pacer.nextChange == start + .seconds(7) + .milliseconds(10))
    }

    @Test func probesWithGapsThatDoubleUpToTheMaximum() {
        var pacer = IdleFetchPacer(settings: settings, now: start)
        var now = start + .seconds(2)
        #expect(pacer.tick(now: now) == .pause)
        var gaps: [Duration] = []
        for _ in 0..<6 {
            let restEnd = pacer.nextChange
            gaps.append(restEnd - now)
            #expect(pacer.tick(now: restEnd - .milliseconds(1)) == .none)
            now = restEnd
            #expect(pacer.tick(now: now) == .resume)
            #expect(pacer.isFetching)
            #expect(pacer.nextChange == now + .milliseconds(5))
            now = pacer.nextChange
            #expect(pacer.tick(now: now) == .pause)
        }
        #expect(gaps == [10, 20, 40, 80, 100, 100].map { Duration.milliseconds($0) })
    }

    @Test func aProbeAnsweredEmptyRestsAtOnceWithTheGapDoubled() {
        var pacer = IdleFetchPacer(settings: settings, now: start)
        var now = start + .seconds(2)
        #expect(pacer.probeAnswered(now: now) == .none)
        _ = pacer.tick(now: now)
        now = pacer.nextChange
        #expect(pacer.tick(now: now) == .resume)
        #expect(pacer.isProbing)
        now += .milliseconds(1)
        #expect(pacer.probeAnswered(now: now) == .pause)
        #expect(!pacer.isFetching)
        #expect(pacer.nextChange == now + .milliseconds(20))
    }

    @Test func aMessageOrANudgeWhileRestingResumesAtOnceAndResetsTheGap() {
        var pacer = IdleFetchPacer(settings: settings, now: start)
        var now = start + .seconds(2)
        _ = pacer.tick(now: now)
        for _ in 0..<8 {
            now = pacer.nextChange
            _ = pacer.tick(now: now)
        }
        #expect(!pacer.isFetching)
        #expect(pacer.activity(now: now) == .resume)
        #expect(pacer.isFetching)
        #expect(pacer.activity(now: now) == .none)
        now += .seconds(2)
        #expect(pacer.tick(now: now) == .pause)
        #expect(pacer.nextChange == now + .milliseconds(10))
    }

    @Test func theDevelopmentProfileAloneTurnsItOn() {
        #expect(KafkaConfiguration(brokers: "k:9092").idleFetch == nil)
        let dev = KafkaConfiguration(brokers: "k:9092", isDevelopment: true)
        #expect(dev.idleFetch == IdleFetchPacer.Settings())
        #expect(dev.librdkafkaProperties(for: .reader(groupId: "g"))["enable.partition.eof"] == "true")
        #expect(
            KafkaConfiguration(brokers: "k:9092").librdkafkaProperties(for: .reader(groupId: "g"))[
                "enable.partition.eof"] == nil)
        let off = KafkaConfiguration.fromEnvironment(
            Environment(["MAPVEST_ENV": "dev", "KAFKA_IDLE_FETCH_MAX_GAP_MS": "0"]))
        #expect(off.idleFetch == nil)
        let longer = KafkaConfiguration.fromEnvironment(
            Environment(["MAPVEST_ENV": "dev", "KAFKA_IDLE_FETCH_MAX_GAP_MS": "250"]))
        #expect(longer.idleFetch?.maxGap == .milliseconds(250))
    }

    @Test func consumersOffARequestsPathProbeLessOften() {
        let dev = KafkaConfiguration(brokers: "k:9092", isDevelopment: true)
        #expect(dev.idleFetch(for: .prompt) == IdleFetchPacer.Settings())
        #expect(dev.idleFetch(for: .background) == IdleFetchPacer.Settings(maxGap: .seconds(1)))
        #expect(KafkaConfiguration(brokers: "k:9092").idleFetch(for: .background) == nil)
        let set = KafkaConfiguration.fromEnvironment(
            Environment(["MAPVEST_ENV": "dev", "KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS": "3000"]))
        #expect(set.idleFetch(for: .background)?.maxGap == .seconds(3))
        #expect(set.idleFetch(for: .prompt)?.maxGap == .milliseconds(100))
        // Never shorter than the prompt consumers' gap; off with the pacer.
        let shorter = KafkaConfiguration.fromEnvironment(
            Environment([
                "MAPVEST_ENV": "dev", "KAFKA_IDLE_FETCH_MAX_GAP_MS": "400",
                "KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS": "200",
            ]))
        #expect(shorter.idleFetch(for: .background)?.maxGap == .milliseconds(400))
        let off = KafkaConfiguration.fromEnvironment(
            Environment(["MAPVEST_ENV": "dev", "KAFKA_IDLE_FETCH_MAX_GAP_MS": "0"]))
        #expect(off.idleFetch(for: .background) == nil)
    }
}
