import Foundation
import Postgres

/// Once-per-slot work across replicas, in one Postgres table: a row per `(job, slot)` is claimed with a lease by
/// `INSERT … ON CONFLICT DO UPDATE … WHERE done_at IS NULL AND lease_until < now()`, so exactly one claimant wins
/// at a time; the winner marks it done. A claimant that dies mid-slot leaves a lease that runs out, after which
/// the next claimant takes the slot over — work is at most once while leases are honoured, and never lost.
///
/// The owner of `table` creates it with `SlotClaims.migration(version:table:)` in its own schema.
public struct SlotClaims: Sendable {
    /// What a claim found.
    public enum Claim: Sendable, Equatable {
        /// This caller holds the slot until its lease ends: do the work, then `complete`.
        case won
        /// The slot's work is finished.
        case done
        /// Another claimant holds a live lease.
        case held
    }

    let db: PostgresPool
    let table: String
    /// Who claims (logged in the row, for operators).
    public let owner: String

    /// `table` is a schema-qualified identifier from code, e.g. `briefs.job_slots`.
    public init(db: PostgresPool, table: String, owner: String) {
        self.db = db
        self.table = table
        self.owner = owner
    }

    /// The table and its pruning index.
    public static func migration(version: Int, table: String) -> Migration {
        Migration(
            version: version, name: "job slots",
            sql: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    job TEXT NOT NULL,
                    slot TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    claimed_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
                    lease_until TIMESTAMPTZ NOT NULL,
                    done_at TIMESTAMPTZ,
                    PRIMARY KEY (job, slot)
                );
                CREATE INDEX IF NOT EXISTS \(table.split(separator: ".").last ?? "job_slots")_claimed_idx
                    ON \(table) (claimed_at);
                """)
    }

    /// Claims `slot` of `job` for `lease` unless it is done or someone else's lease is live.
    public func claim(job: String, slot: String, lease: Duration) async throws -> Claim {
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        let won = try await db.query(
            """
            INSERT INTO \(unescaped: table) (job, slot, owner, lease_until)
            VALUES (\(job), \(slot), \(owner), clock_timestamp() + make_interval(secs => \(seconds)))
            ON CONFLICT (job, slot) DO UPDATE
                SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until, claimed_at = clock_timestamp()
                WHERE \(unescaped: table).done_at IS NULL AND \(unescaped: table).lease_until < clock_timestamp()
            RETURNING owner
            """)
        if !won.isEmpty { return .won }
        let row = try await db.query(
            "SELECT done_at IS NOT NULL AS done FROM \(unescaped: table) WHERE job = \(job) AND slot = \(slot)")
        return row.first?.bool("done") == true ? .done : .held
    }

    /// Marks a won slot done; later claims answer `.done`.
    public func complete(job: String, slot: String) async throws {
        try await db.execute(
            """
            UPDATE \(unescaped: table) SET done_at = clock_timestamp()
            WHERE job = \(job) AND slot = \(slot) AND owner = \(owner)
            """)
    }

    /// Gives a won slot back at once (the work failed), so the next claimant need not wait out the lease.
    public func release(job: String, slot: String) async throws {
        try await db.execute(
            """
            UPDATE \(unescaped: table) SET lease_until = clock_timestamp()
            WHERE job = \(job) AND slot = \(slot) AND owner = \(owner) AND done_at IS NULL
            """)
    }

    /// What `once` did.
    public enum Outcome: Sendable, Equatable {
        /// This caller did the work.
        case ran
        /// Someone did it already (or did it while this caller waited).
        case alreadyDone
        /// Another claimant still held the slot at `deadline`.
        case stillHeld
        /// The work reported failure; the slot was released for a retry.
        case failed
    }

    /// Runs `work` once for the slot across every caller: claims it, or waits (polling every `poll`) while another
    /// claimant's lease is live, taking over when that lease runs out, until `deadline`. `work` returns whether it
    /// succeeded; success completes the slot, failure releases it.
    public func once(
        job: String, slot: String, lease: Duration, deadline: ContinuousClock.Instant,
        poll: Duration = .milliseconds(500), work: @Sendable () async -> Bool
    ) async throws -> Outcome {
        while true {
            switch try await claim(job: job, slot: slot, lease: lease) {
            case .done:
                return .alreadyDone
            case .won:
                if await work() {
                    try await complete(job: job, slot: slot)
                    return .ran
                }
                try await release(job: job, slot: slot)
                return .failed
            case .held:
                guard ContinuousClock.now + poll < deadline else { return .stillHeld }
                try await Task.sleep(for: poll)
            }
        }
    }

    /// Deletes rows claimed before `age` ago (their slots can no longer come due).
    @discardableResult
    public func prune(olderThan age: Duration) async throws -> Int {
        let seconds = Double(age.components.seconds)
        return try await db.execute(
            "DELETE FROM \(unescaped: table) WHERE claimed_at < clock_timestamp() - make_interval(secs => \(seconds))")
    }
}
