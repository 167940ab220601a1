import BriefsCore
import Contracts
import Foundation
import Messaging
import Redis
import Runtime
import ServiceKit

/// The Local Economy Brief (docs/COMPATIBILITY.md#local-brief): the place from the request or reverse geocoding, then
/// one written brief per 3-dp point and UTC day, cached 24 h in Redis under `v2:<lat>,<lng>::<YYYYMMDD>` and shared by
/// replicas. Any failure is the same shape with the outage paragraphs, never cached. The request path never
/// pushes (the device is already showing the brief); the movement scheduler pushes its own.
struct LocalBriefs: Sendable {
    static let cacheTTL: Duration = .seconds(24 * 3600)

    let writer: LocalBriefWriter
    let geocoder: ReverseGeocoder
    let logger: Logger
    private let cache: RedisSharedCache<Cached>

    /// A brief and whether it was written (false: the outage brief, never stored).
    struct Cached: Codable, Sendable {
        var brief: LocalBrief
        var written: Bool
    }

    init(writer: LocalBriefWriter, geocoder: ReverseGeocoder, redis: RedisClient?, logger: Logger) {
        self.writer = writer
        self.geocoder = geocoder
        self.logger = logger
        // The lock outlives a whole model cascade; a replica that lost it waits most of a request budget.
        cache = RedisSharedCache(
            redis: redis, prefix: "mapvest:local-brief:", lockTTL: .seconds(90), waitForOther: .seconds(25),
            logger: logger)
    }

    /// `POST /v1/local-brief`: always 200.
    func brief(_ command: LocalBriefCommand, deadline: ContinuousClock.Instant) async -> Reply {
        .json(200, await generate(lat: command.lat, lng: command.lng, given: command.place, deadline: deadline).brief)
    }

    /// A brief for a point; `written` is false for the outage brief.
    func generate(
        lat: Double, lng: Double, given: LocalBriefPlace, deadline: ContinuousClock.Instant
    ) async -> (brief: LocalBrief, written: Bool) {
        var place = given
        if LocalBriefRules.needsGeocoding(place), let found = await geocoder.place(lat: lat, lng: lng) {
            place = LocalBriefRules.merge(place, found)
        }
        let key = LocalBriefRules.cacheKey(lat: lat, lng: lng, now: Date())
        let (writer, logger, resolved) = (self.writer, self.logger, place)
        let outcome = await cache.value(key, ttl: { $0.written ? Self.cacheTTL : nil }) {
            let now = Timestamp.iso8601(Date())
            guard let written = await writer.write(lat: lat, lng: lng, place: resolved, deadline: deadline) else {
                logger.warning("local brief: no model answer, outage brief")
                return Cached(
                    brief: LocalBrief(
                        paragraphs: LocalBriefRules.outage(place: resolved), place: resolved, nearbyCount: 0,
                        generatedAt: now),
                    written: false)
            }
            return Cached(
                brief: LocalBrief(
                    paragraphs: written.paragraphs, place: resolved, nearbyCount: written.nearbyCount, generatedAt: now),
                written: true)
        }
        return (outcome.value.brief, outcome.value.written)
    }
}
