import Contracts
import Foundation
import Postgres
import ResearchCore
import Runtime

/// The stored value chains (`research.company_edges`): one set per subject ticker, replaced whole by a refresh that
/// found edges; a refresh that found none leaves the set as it was. Beside them, each ticker's newest 10-K as EDGAR
/// lists it (`research.graph_filings`, written by `FilingWatch`).
struct GraphStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 4, name: "company edges",
            sql: """
                CREATE TABLE IF NOT EXISTS research.company_edges (
                    id TEXT PRIMARY KEY,
                    src_ticker TEXT NOT NULL,
                    dst_ticker TEXT,
                    dst_name TEXT NOT NULL,
                    edge_type TEXT NOT NULL,
                    weight DOUBLE PRECISION NOT NULL,
                    reasoning TEXT NOT NULL,
                    sources TEXT NOT NULL,
                    as_of TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS company_edges_src_idx ON research.company_edges (src_ticker, created_at DESC);
                """),
        Migration(
            version: 10, name: "graph filings",
            sql: """
                CREATE TABLE IF NOT EXISTS research.graph_filings (
                    ticker TEXT PRIMARY KEY,
                    accession TEXT NOT NULL,
                    accepted_at TIMESTAMPTZ NOT NULL,
                    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                """),
    ]

    /// The stored set of `ticker`, the age of its newest edge in seconds (nil when nothing is stored) and the age of
    /// its newest known 10-K (nil when none is known).
    func load(_ ticker: String) async throws -> (edges: [CompanyEdge], ageSeconds: Double?, tenKAgeSeconds: Double?) {
        let rows = try await db.query(
            """
            SELECT id, src_ticker, dst_ticker, dst_name, edge_type, weight, reasoning, sources, as_of,
                to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_iso,
                EXTRACT(EPOCH FROM now() - created_at)::float8 AS age,
                (SELECT EXTRACT(EPOCH FROM now() - f.accepted_at)::float8 FROM research.graph_filings f
                    WHERE f.ticker = \(ticker)) AS ten_k_age
            FROM research.company_edges WHERE src_ticker = \(ticker) ORDER BY weight DESC, id
            """)
        let edges = rows.compactMap { row -> CompanyEdge? in
            guard let id = row.string("id"), let name = row.string("dst_name"), let type = row.string("edge_type")
            else { return nil }
            return CompanyEdge(
                id: id, srcTicker: ticker, dstTicker: row.string("dst_ticker"), dstName: name, edgeType: type,
                weight: row.double("weight") ?? 0, reasoning: row.string("reasoning") ?? "",
                sources: row.string("sources").flatMap { try? JSONDecoder().decode([Source].self, from: Data($0.utf8)) }
                    ?? [],
                asOf: row.string("as_of"), createdAt: row.string("created_iso") ?? "")
        }
        return (edges, rows.compactMap { $0.double("age") }.min(), rows.first?.double("ten_k_age"))
    }

    /// The tickers with a stored graph.
    func tickers() async throws -> [String] {
        try await db.query("SELECT DISTINCT src_ticker FROM research.company_edges ORDER BY src_ticker")
            .compactMap { $0.string("src_ticker") }
    }

    /// Stores `filing` as the newest 10-K of `ticker`; true when it was not the one stored already.
    func recordTenK(_ ticker: String, _ filing: TenKRefresh.Filing) async throws -> Bool {
        let accepted = Timestamp.iso8601(filing.acceptedAt)
        return try await db.execute(
            """
            INSERT INTO research.graph_filings (ticker, accession, accepted_at)
            VALUES (\(ticker), \(filing.accession), \(accepted)::timestamptz)
            ON CONFLICT (ticker) DO UPDATE SET accession = EXCLUDED.accession, accepted_at = EXCLUDED.accepted_at,
                recorded_at = now()
            WHERE research.graph_filings.accession <> EXCLUDED.accession
            """) > 0
    }

    /// Replaces the set of `ticker` with `edges` (all with one `created_at`, now).
    func replace(_ ticker: String, with edges: [CompanyEdge]) async throws {
        let rows = try edges.map { ($0, String(decoding: try JSONEncoder().encode($0.sources), as: UTF8.self)) }
        _ = try await db.transaction { connection in
            try await connection.execute("DELETE FROM research.company_edges WHERE src_ticker = \(ticker)")
            for (edge, sources) in rows {
                try await connection.execute(
                    """
                    INSERT INTO research.company_edges
                        (id, src_ticker, dst_ticker, dst_name, edge_type, weight, reasoning, sources, as_of,
                         created_at)
                    VALUES (\(edge.id), \(ticker), \(edge.dstTicker), \(edge.dstName), \(edge.edgeType), \(edge.weight),
                        \(edge.reasoning), \(sources), \(edge.asOf), \(edge.createdAt)::timestamptz)
                    """)
            }
            return 0
        }
    }
}
