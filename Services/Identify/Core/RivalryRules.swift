import Contracts
import Finance
import Foundation

/// Rivalries' decisions, free of I/O: symbols as the comparables path accepts them, the Monday-keyed rounds, and
/// which comparable may be a rival.
public enum RivalryRules {
    /// A rivalry is a weekly commitment, not a watchlist.
    public static let maxPerUser = 10
    /// The longest the comparables pipeline may take to name a rival.
    public static let resolveTimeout: Duration = .seconds(12)

    public static let invalidTicker = APIError(400, "ticker is not a plausible listed symbol")
    public static let invalidRival = APIError(400, "rivalTicker is not a plausible listed symbol")
    public static let ownRival = APIError(400, "a ticker cannot be its own rival")
    public static let noComparable = APIError(422, "no plausible comparable found — pass rivalTicker explicitly")
    public static let tooMany = APIError(429, "at most \(maxPerUser) rivalries per user")
    public static let notFound = APIError(404, "rivalry not found")

    /// Trimmed and upper-cased; empty when nothing is left.
    public static func normalize(_ symbol: String?) -> String {
        (symbol ?? "").trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
    }

    /// 1–5 capital letters and not a common word (the check every comparable passes).
    public static func isPlausible(_ symbol: String) -> Bool { TickerValidation.isValidCandidate(symbol) }

    /// The symbols of a create request, checked: the ticker, and the rival when one was sent (an empty rival is none).
    public static func symbols(ticker: String, rivalTicker: String?) -> Result<
        (ticker: String, rival: String?), APIError
    > {
        let ticker = normalize(ticker)
        guard isPlausible(ticker) else { return .failure(invalidTicker) }
        let rival = normalize(rivalTicker)
        guard !rival.isEmpty else { return .success((ticker, nil)) }
        guard isPlausible(rival) else { return .failure(invalidRival) }
        return .success((ticker, rival))
    }

    /// The first comparable that is plausible and not the ticker itself; nil is the 422, never a guess.
    public static func rival(for ticker: String, among comparables: [Comparable]) -> String? {
        comparables.map { normalize($0.ticker) }.first { isPlausible($0) && $0 != ticker }
    }

    /// The Monday (UTC) of the week holding `date`, `YYYY-MM-DD`: the open round's key.
    public static func weekStart(_ date: Date) -> String {
        let day = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // 1970-01-01 was a Thursday, three days after a Monday.
        let monday = day - ((day + 3) % 7 + 7) % 7
        return ProgressRules.day(Date(timeIntervalSince1970: TimeInterval(monday) * 86_400))
    }

    /// The Monday after the week holding `date`: the round a close opens.
    public static func nextWeekStart(_ date: Date) -> String {
        weekStart(date.addingTimeInterval(7 * 86_400))
    }
}
