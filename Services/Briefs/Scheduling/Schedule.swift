import Foundation

/// When a job comes due, in a time zone: daily or weekly at a wall-clock time, or every N minutes of the hour.
public enum Schedule: Sendable, Equatable {
    /// Every day at `hour:minute` local time.
    case daily(hour: Int, minute: Int)
    /// Every week on `weekday` (1 = Sunday … 7 = Saturday, as `Calendar` counts) at `hour:minute` local time.
    case weekly(weekday: Int, hour: Int, minute: Int)
    /// Every minute `m` of the hour with `m % every == offset` (e.g. every 5 minutes: `every: 5, offset: 0`).
    case minutes(every: Int, offset: Int)

    /// The latest due instant at or before `now` (whole minutes), in `timeZone`.
    public func latestSlot(atOrBefore now: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let minuteStart = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 60).rounded(.down) * 60)
        switch self {
        case .daily(let hour, let minute):
            var today = calendar.dateComponents([.year, .month, .day], from: now)
            today.hour = hour
            today.minute = minute
            let candidate = calendar.date(from: today) ?? minuteStart
            if candidate <= now { return candidate }
            return calendar.date(byAdding: .day, value: -1, to: candidate) ?? candidate
        case .weekly(let weekday, let hour, let minute):
            var today = calendar.dateComponents([.year, .month, .day], from: now)
            today.hour = hour
            today.minute = minute
            var candidate = calendar.date(from: today) ?? minuteStart
            for _ in 0..<8 {
                if candidate <= now, calendar.component(.weekday, from: candidate) == weekday { return candidate }
                candidate = calendar.date(byAdding: .day, value: -1, to: candidate) ?? candidate
            }
            return candidate
        case .minutes(let every, let offset):
            let period = max(1, every)
            var slot = minuteStart
            for _ in 0..<period {
                if calendar.component(.minute, from: slot) % period == offset % period { return slot }
                slot = slot.addingTimeInterval(-60)
            }
            return minuteStart
        }
    }

    /// How long after its instant a slot may still fire (a replica that was down at 07:00 catches up at 07:04).
    public var grace: Duration {
        switch self {
        case .daily: .seconds(15 * 60)
        // A weekly close is rarer and idempotent per round: a replica back within six hours still runs it.
        case .weekly: .seconds(6 * 3600)
        case .minutes(let every, _): .seconds(60 * max(1, every))
        }
    }
}
