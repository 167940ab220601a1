import Foundation

/// `POST /v1/memo` on `mapvest.briefs.commands.v1`: a model-written memo on `ticker` (`^[A-Z][A-Z0-9.-]{0,9}$`);
/// with a `userId` (a signed-in caller) it is stored and announced by a `memo_finished` push. Keyed by the user id,
/// else the ticker.
public struct TickerMemoCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.memo.v1"
    public var userId: String?
    public var ticker: String
    public init(userId: String?, ticker: String) {
        self.userId = userId
        self.ticker = ticker
    }
}

/// One source a memo drew on: a filing or a headline.
public struct MemoSource: Codable, Sendable, Equatable {
    public var title: String
    public var url: String
    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }
}

/// `{ticker, provider, memo, sources, generatedAt}`: `provider` is the model that wrote it.
public struct TickerMemoResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var provider: String
    public var memo: String
    public var sources: [MemoSource]
    public var generatedAt: String
    public init(ticker: String, provider: String, memo: String, sources: [MemoSource], generatedAt: String) {
        self.ticker = ticker
        self.provider = provider
        self.memo = memo
        self.sources = sources
        self.generatedAt = generatedAt
    }
}

/// `GET /v1/memo/sec/:ticker`: the company's recent SEC filings from EDGAR, keyed by the ticker.
public struct SECFilingsCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.memo.sec.v1"
    public var ticker: String
    public init(ticker: String) { self.ticker = ticker }
}

/// One filing: form (10-K, 10-Q, 8-K, …), filing date, accession number and the primary document's URL.
public struct SECFiling: Codable, Sendable, Equatable {
    public var form: String
    public var filedAt: String
    public var accessionNumber: String
    public var url: String
    public init(form: String, filedAt: String, accessionNumber: String, url: String) {
        self.form = form
        self.filedAt = filedAt
        self.accessionNumber = accessionNumber
        self.url = url
    }
}

/// `{ticker, cik, name, filings}`: newest first, at most 10 of the forms 10-K, 10-Q, 8-K, 20-F, 6-K, 40-F.
public struct SECFilingsResponse: Codable, Sendable, Equatable {
    public var ticker: String
    public var cik: String
    public var name: String
    public var filings: [SECFiling]
    public init(ticker: String, cik: String, name: String, filings: [SECFiling]) {
        self.ticker = ticker
        self.cik = cik
        self.name = name
        self.filings = filings
    }
}
