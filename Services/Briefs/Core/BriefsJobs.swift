import Contracts
import Foundation

/// Briefs' scheduled jobs as plain values: the daily briefs at `DAILY_BRIEF_TIME` (07:00), the movers scan every 5
/// minutes, the movement scan hourly, the find-evolution scan every 15 minutes at minute ≡ 7 and the price-alert
/// scans at 08:00 and 16:00, published on Briefs' own topic with no user or token id (each expands into per-user
/// or per-device commands). The binary turns them into the scheduler's commands.
public enum BriefsJobs {
    /// When a job comes due, scheduler-local.
    public enum Cadence: Sendable, Equatable {
        case daily(hour: Int, minute: Int)
        case minutes(every: Int, offset: Int)
    }

    /// One job: its name, cadence, command name and encoded body (keyed `all`).
    public struct Job: Sendable, Equatable {
        public let job: String
        public let cadence: Cadence
        public let command: String
        public let body: [UInt8]
    }

    /// `HH:MM` as hour and minute; 07:00 for anything else.
    public static func dailyTime(_ time: String) -> (hour: Int, minute: Int) {
        let parts = time.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 && (0..<24).contains(parts[0]) && (0..<60).contains(parts[1])
            ? (parts[0], parts[1]) : (7, 0)
    }

    /// The daily, movers, movement and find-evolution jobs.
    public static func jobs(dailyAt time: String) -> [Job] {
        let (hour, minute) = dailyTime(time)
        return [
            Job(
                job: "briefs.daily", cadence: .daily(hour: hour, minute: minute),
                command: GenerateDailyBriefsCommand.name, body: body(GenerateDailyBriefsCommand())),
            Job(
                job: "briefs.movers", cadence: .minutes(every: 5, offset: 0),
                command: ScanWatchlistMoversCommand.name, body: body(ScanWatchlistMoversCommand())),
            Job(
                job: "briefs.movement", cadence: .minutes(every: 60, offset: 0),
                command: ScanMovementCommand.name, body: body(ScanMovementCommand())),
            Job(
                job: "briefs.find_evolution", cadence: .minutes(every: 15, offset: 7),
                command: ScanFindEvolutionCommand.name, body: body(ScanFindEvolutionCommand())),
        ]
    }

    /// The price-alert scan at 08:00 and 16:00 scheduler-local (docs/COMPATIBILITY.md#movement), with no user id.
    public static var priceAlertJobs: [Job] {
        let scan = body(ScanPriceAlertsCommand())
        return [8, 16].map { hour in
            Job(
                job: "briefs.price_alerts.\(hour)", cadence: .daily(hour: hour, minute: 0),
                command: ScanPriceAlertsCommand.name, body: scan)
        }
    }

    private static func body(_ command: some Encodable) -> [UInt8] {
        Array((try? JSONEncoder().encode(command)) ?? Data("{}".utf8))
    }
}
