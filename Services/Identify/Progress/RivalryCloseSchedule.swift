import Contracts
import Foundation
import Scheduling

/// The weekly close as a scheduled command: Saturday 12:00 UTC, after Friday's settled closes and on the boundary
/// every weekly mechanic shares, published once per slot on Identify's own topic.
enum RivalryCloseSchedule {
    static let timeZone = TimeZone(identifier: "UTC") ?? .current
    static let job = ScheduledCommand(
        job: "identify.rivalries.close", schedule: .weekly(weekday: 7, hour: 12, minute: 0),
        topic: ServiceName.identify.commandTopic, command: RivalryCommandName.close, key: "all",
        body: Array("{}".utf8))
}
