import Foundation

/// The weekly cycle every weekly mechanic shares (weekly quests, the leaderboard): seven days that close on Saturday
/// at 12:00 UTC. The closing instant belongs to the cycle it closes, so a cycle is the half-open span `(start, end]`.
public enum WeeklyCycle {
    static let week: TimeInterval = 7 * 86_400
    /// Seconds from a UTC midnight to the close (12:00).
    static let closeOffset: TimeInterval = 12 * 3_600
    /// 1970-01-01 was a Thursday: weekday 4 when Sunday is 0.
    static let epochWeekday = 4
    static let saturday = 6

    public struct Window: Equatable, Sendable {
        public let start: Date
        public let end: Date

        /// Whether `date` falls in `(start, end]`.
        public func contains(_ date: Date) -> Bool { date > start && date <= end }
    }

    /// The cycle containing `date`: it ends at the first Saturday 12:00 UTC at or after `date`.
    public static func window(containing date: Date) -> Window {
        let seconds = date.timeIntervalSince1970
        let day = (seconds / 86_400).rounded(.down)
        let weekday = ((Int(day) + epochWeekday) % 7 + 7) % 7
        var close = day * 86_400 + closeOffset + TimeInterval((saturday - weekday + 7) % 7) * 86_400
        if close < seconds { close += week }
        let end = Date(timeIntervalSince1970: close)
        return Window(start: end - week, end: end)
    }
}
