import Contracts
import Foundation
import Messaging

/// `GET /v1/progress` and `GET /v1/universe/summary`, answered beside the finds journal.
struct ProgressCommands: Sendable {
    let progress: ProgressStore
    let finds: FindsStore
    let universe: UniverseSummarizer

    func progress(_ command: ProgressCommand) async throws -> Reply {
        .json(200, ProgressResponse(progress: try await progress.progress(userId: command.userId)))
    }

    /// Over the newest 200 finds (the journal's own listing limit); quotes must be back 500 ms before the deadline.
    func universe(_ command: UniverseSummaryCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let journal = try await finds.list(userId: command.userId, limit: 200)
        return .json(200, await universe.summary(of: journal, deadline: deadline - .milliseconds(500)))
    }
}
