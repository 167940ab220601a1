import Runtime

/// The deadline of the gateway's own Postgres and Redis lookups in a request (the signed-in user, the quota, sign-in
/// codes). Lower layers retry transient failures only until it (`TaskDeadline`, as `CommandRunner` sets for the
/// services), and a lookup still unanswered then (a frozen server holds a query forever) is abandoned with
/// `LookupDeadline.Expired`, which the routes answer 503: a dead dependency costs a request at most `budget`.
struct LookupDeadline: Sendable {
    /// `LOOKUP_BUDGET_MS`, default 2 s.
    let budget: Duration

    /// A lookup that did not finish within the budget.
    struct Expired: TransientFailure, CustomStringConvertible {
        let budget: Duration
        var isRetriable: Bool { true }
        var dependency: String { "user store" }
        var description: String { "lookup unanswered within \(budget)" }
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + budget
        let outcome = await withTimeLimit(budget) { () async -> Result<T, any Error> in
            await TaskDeadline.$current.withValue(deadline) {
                do { return .success(try await work()) } catch { return .failure(error) }
            }
        }
        guard let outcome else { throw Expired(budget: budget) }
        return try outcome.get()
    }
}
