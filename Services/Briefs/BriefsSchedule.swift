import BriefsCore
import Contracts
import Scheduling

/// Briefs' scheduled jobs (`BriefsJobs`) as the command scheduler's commands, on Briefs' own topic keyed `all`.
enum BriefsSchedule {
    static func commands(_ jobs: [BriefsJobs.Job]) -> [ScheduledCommand] {
        jobs.map {
            ScheduledCommand(
                job: $0.job, schedule: schedule($0.cadence), topic: ServiceName.briefs.commandTopic,
                command: $0.command, key: "all", body: $0.body)
        }
    }

    static func schedule(_ cadence: BriefsJobs.Cadence) -> Schedule {
        switch cadence {
        case .daily(let hour, let minute): .daily(hour: hour, minute: minute)
        case .minutes(let every, let offset): .minutes(every: every, offset: offset)
        }
    }
}
