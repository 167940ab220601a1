import Foundation
import Runtime

/// The progression arithmetic (docs/COMPATIBILITY.md#record-find), free of I/O: XP per find, pioneer and badge awards,
/// the level curve and the UTC-day streak with its freezes.
public enum ProgressRules {
    public static let xpPerFind = 10
    /// The first find in a geohash-6 tile.
    public static let pioneerXP = 15
    /// A completed dex sector (docs/COMPATIBILITY.md#dex).
    public static let sectorBadgeXP = 50
    /// A streak that becomes this long grants this many freezes.
    static let freezeMilestones: [Int: Int] = [7: 1, 30: 2, 100: 3]

    /// 0 XP → level 1, 100 → 2, 400 → 3, 900 → 4 …
    public static func level(xp: Int) -> Int {
        Int((Double(max(xp, 0)) / 100).squareRoot().rounded(.down)) + 1
    }

    public struct Streak: Equatable, Sendable {
        public var days: Int
        public var freezes: Int
        public var lastDay: String?

        public init(days: Int, freezes: Int, lastDay: String?) {
            self.days = days
            self.freezes = freezes
            self.lastDay = lastDay
        }
    }

    /// The streak after a find on `day` (`YYYY-MM-DD`, UTC): the same day or an earlier one leaves it alone; the
    /// next day extends it; one missed day is bridged by a freeze when there is one; any other gap restarts it at 1.
    /// Reaching a milestone grants its freezes (only when the streak becomes that long, so same-day finds cannot
    /// farm them).
    public static func afterFind(_ streak: Streak, day: String) -> Streak {
        guard let last = streak.lastDay, let gap = dayGap(from: last, to: day) else {
            return Streak(days: 1, freezes: streak.freezes, lastDay: day)
        }
        if gap <= 0 { return streak }
        var next = Streak(days: 1, freezes: streak.freezes, lastDay: day)
        if gap == 1 {
            next.days = streak.days + 1
        } else if gap == 2 && streak.freezes > 0 {
            next.days = streak.days + 1
            next.freezes -= 1
        }
        next.freezes += freezeMilestones[next.days] ?? 0
        return next
    }

    /// The UTC day of `date`, as `YYYY-MM-DD`.
    public static func day(_ date: Date) -> String { String(Timestamp.iso8601(date).prefix(10)) }

    /// Whole days from `a` to `b`; nil when either is not a `YYYY-MM-DD` day.
    static func dayGap(from a: String, to b: String) -> Int? {
        guard let start = Timestamp.parse("\(a)T00:00:00Z"), let end = Timestamp.parse("\(b)T00:00:00Z") else {
            return nil
        }
        return Int((end.timeIntervalSince(start) / 86_400).rounded())
    }
}
