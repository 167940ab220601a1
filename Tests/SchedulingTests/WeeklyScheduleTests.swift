import Foundation
import Runtime
import Scheduling
import Testing

/// `Schedule.weekly`: the latest Saturday 12:00 at or before an instant, and its longer grace.
struct WeeklyScheduleTests {
    static func date(_ iso: String) throws -> Date { try #require(Timestamp.parse(iso)) }

    @Test func theLatestWeekdayAtItsTime() throws {
        let saturdayNoon = Schedule.weekly(weekday: 7, hour: 12, minute: 0)
        let slot = try Self.date("2026-12-05T12:00:00.000Z")  // a Saturday
        #expect(saturdayNoon.latestSlot(atOrBefore: slot, in: .gmt) == slot)
        #expect(saturdayNoon.latestSlot(atOrBefore: try Self.date("2026-12-05T18:30:00.000Z"), in: .gmt) == slot)
        #expect(saturdayNoon.latestSlot(atOrBefore: try Self.date("2026-12-11T23:59:00.000Z"), in: .gmt) == slot)
        #expect(
            saturdayNoon.latestSlot(atOrBefore: try Self.date("2026-12-05T11:59:59.000Z"), in: .gmt)
                == (try Self.date("2026-11-28T12:00:00.000Z")))
        #expect(saturdayNoon.grace == .seconds(6 * 3600))
    }
}
