import Contracts
import Foundation
import Scheduling

/// Briefs' scheduled jobs: the daily briefs at `DAILY_BRIEF_TIME` (07:00), the movers scan every 5 minutes, the
/// movement scan hourly and the find-evolution scan every 15 minutes at minute ≡ 7, published on Briefs' own topic
/// with no user or token id (each expands into per-user or per-device commands).
enum BriefsSchedule {
    static func jobs(dailyAt time: String) -> [ScheduledCommand] {
        let parts = time.split(separator: ":").compactMap { Int($0) }
        let (hour, minute) =
            parts.count == 2 && (0..<24).contains(parts[0]) && (0..<60).contains(parts[1])
            ? (parts[0], parts[1]) : (7, 0)
        let encoder = JSONEncoder()
        return [
            ScheduledCommand(
                job: "briefs.daily", schedule: .daily(hour: hour, minute: minute),
                topic: ServiceName.briefs.commandTopic,
                command: GenerateDailyBriefsCommand.name, key: "all",
                body: Array((try? encoder.encode(GenerateDailyBriefsCommand())) ?? Data("{}".utf8))),
            ScheduledCommand(
                job: "briefs.movers", schedule: .minutes(every: 5, offset: 0), topic: ServiceName.briefs.commandTopic,
                command: ScanWatchlistMoversCommand.name, key: "all",
                body: Array((try? encoder.encode(ScanWatchlistMoversCommand())) ?? Data("{}".utf8))),
            ScheduledCommand(
                job: "briefs.movement", schedule: .minutes(every: 60, offset: 0),
                topic: ServiceName.briefs.commandTopic,
                command: ScanMovementCommand.name, key: "all",
                body: Array((try? encoder.encode(ScanMovementCommand())) ?? Data("{}".utf8))),
            ScheduledCommand(
                job: "briefs.find_evolution", schedule: .minutes(every: 15, offset: 7),
                topic: ServiceName.briefs.commandTopic,
                command: ScanFindEvolutionCommand.name, key: "all",
                body: Array((try? encoder.encode(ScanFindEvolutionCommand())) ?? Data("{}".utf8))),
        ]
    }
}

struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
