import Foundation
import Runtime

/// Briefs' UTC calendar keys: the day every push and cache key names, and the Monday that starts a budget week.
public enum BriefsCalendar {
    /// `YYYYMMDD` in UTC.
    public static func day(_ date: Date) -> String { String(Timestamp.iso8601(date).prefix(10)).filter(\.isNumber) }

    /// `YYYYMMDD` of the Monday (UTC) starting `date`'s week.
    public static func weekKey(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let weekday = calendar.component(.weekday, from: date)  // 1 = Sunday
        let back = (weekday + 5) % 7
        return day(calendar.date(byAdding: .day, value: -back, to: date) ?? date)
    }

    /// The hour of `date` in UTC.
    public static func utcHour(_ date: Date) -> Int {
        Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: date)
            .hour ?? 0
    }
}
