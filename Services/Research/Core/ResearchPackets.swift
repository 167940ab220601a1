import Contracts

/// Prism and Situate packets (the Underlying engine's research packets), built as durable jobs by the Research
/// service: the gateway's commands and the build state a client polls.

/// Which engine packet.
public enum PacketKind: String, Codable, Sendable, CaseIterable {
    case prism, situate

    /// `Prism` or `Situate`.
    public var title: String { self == .prism ? "Prism" : "Situate" }
}

/// `POST /v1/prism` and `/v1/situate` (and their aliases): start a build of today's packet, or join the one going.
public struct PacketBuildCommand: Codable, Sendable, Equatable {
    public static let name = "research.packet.build.v1"
    public var kind: PacketKind
    public var ticker: String
    /// Rebuild even when today's packet exists.
    public var force: Bool
    public var includeMemo: Bool?
    /// Situate only: the as-of date of the packet.
    public var asOf: String?
    public var owner: ResearchOwner

    public init(
        kind: PacketKind, ticker: String, force: Bool, includeMemo: Bool?, asOf: String?, owner: ResearchOwner
    ) {
        self.kind = kind
        self.ticker = ticker
        self.force = force
        self.includeMemo = includeMemo
        self.asOf = asOf
        self.owner = owner
    }
}

/// `GET /v1/prism/{ticker}` (`format` nil) and `…/export?format=txt|json|pdf`.
public struct PacketReadCommand: Codable, Sendable, Equatable {
    public static let name = "research.packet.read.v1"
    public var kind: PacketKind
    public var ticker: String
    public var format: String?

    public init(kind: PacketKind, ticker: String, format: String?) {
        self.kind = kind
        self.ticker = ticker
        self.format = format
    }
}

/// A build not finished yet (the 202 body): where it is, and where to poll.
public struct PacketBuildState: Codable, Sendable, Equatable {
    public var ticker: String
    public var kind: PacketKind
    public var buildId: String
    /// `queued`, `running`, `done` or `failed`.
    public var status: String
    /// `queued`, `building`, `storing`, `notifying`, `done`.
    public var stage: String
    public var attempts: Int
    public var updatedAt: String
    public var poll: String
    public var pending: Bool
    public var error: String?

    public init(
        ticker: String, kind: PacketKind, buildId: String, status: String, stage: String, attempts: Int,
        updatedAt: String, error: String?
    ) {
        self.ticker = ticker
        self.kind = kind
        self.buildId = buildId
        self.status = status
        self.stage = stage
        self.attempts = attempts
        self.updatedAt = updatedAt
        self.poll = "/v1/\(kind.rawValue)/\(ticker)"
        self.pending = status == "queued" || status == "running"
        self.error = error
    }
}

/// `mapvest.packet.built`: a packet was stored (one event per build).
public struct PacketBuiltEvent: Codable, Sendable, Equatable {
    public static let type = "mapvest.packet.built"
    public var buildId: String
    public var kind: PacketKind
    public var ticker: String
    public var day: String
    public var owners: Int

    public init(buildId: String, kind: PacketKind, ticker: String, day: String, owners: Int) {
        self.buildId = buildId
        self.kind = kind
        self.ticker = ticker
        self.day = day
        self.owners = owners
    }
}
