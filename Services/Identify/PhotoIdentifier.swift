import Contracts
import Finance
import FoundationEssentials
import Messaging
import Runtime

/// Turns one identify command into an `IdentifyResponse`: reads what the photo and the hint say, matches it against the
/// curated seed, and builds investables with their sources and rarity.
struct PhotoIdentifier: Sendable {
    /// Which path produced the identification (`identify.completed` events carry it).
    enum Path: String, Sendable {
        case vision, ocr, hint, none
    }

    struct Outcome: Sendable {
        let response: IdentifyResponse
        let path: Path
    }

    let photos: PhotoClaims
    let logger: Logger
    let matcher = BrandMatcher.shared

    func identify(_ command: IdentifyPhotoCommand) async -> Outcome {
        defer { Task { await photos.delete(command.photoKey) } }
        let now = Timestamp.iso8601(Date())
        guard let hint = command.hint else {
            return Outcome(
                response: IdentifyResponse(
                    identification: Identification(
                        visibleText: [], detected: [], location: command.location, modelUsed: "none"),
                    investables: []),
                path: .none)
        }
        guard let match = matcher.match(hint) else {
            return Outcome(
                response: IdentifyResponse(
                    identification: Identification(
                        visibleText: [], detected: [Detection(brand: hint, confidence: .low)],
                        location: command.location, modelUsed: "hint:seed"),
                    investables: []),
                path: .hint)
        }
        let confidence: Confidence = match.method == .direct ? .high : .medium
        let name = SeedInvestable.displayName(of: match, in: hint)
        let detection = Detection(brand: name, sector: match.entry.sector, confidence: confidence)
        let investable = SeedInvestable.make(match: match, name: name, confidence: confidence, fetchedAt: now)
        return Outcome(
            response: IdentifyResponse(
                identification: Identification(
                    visibleText: [], detected: [detection], location: command.location, modelUsed: "hint:seed"),
                investables: [investable]),
            path: .hint)
    }
}

/// Builds the investable for a seed match: a public brand citing the curated seed (`manual`).
enum SeedInvestable {
    static func make(match: BrandMatcher.Match, name: String, confidence: Confidence, fetchedAt: String) -> Investable {
        let entry = match.entry
        let brand = Brand(
            name: name, parent: entry.parent, isPublic: entry.isPublic,
            ticker: Ticker(symbol: entry.ticker, exchange: entry.exchange, parent: entry.parent), sector: entry.sector)
        return Investable(
            brand: brand, confidence: confidence,
            sources: [Source(provider: .manual, fetchedAt: fetchedAt, confidence: .high)],
            rarity: RarityClassifier.classify(ticker: entry.ticker, comparable: nil, isPublic: entry.isPublic))
    }

    /// The brand as the user wrote it: the matched words of `text` in their original case.
    static func displayName(of match: BrandMatcher.Match, in text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if match.method == .substring, let range = trimmed.range(of: match.key, options: .caseInsensitive) {
            return String(trimmed[range])
        }
        return trimmed
    }
}

extension PhotoIdentifier {
    /// `POST /v1/resolve-comparable` from the seed alone (the online cascade joins with the resolver).
    func resolveComparable(_ command: ResolveComparableCommand) async throws -> Reply {
        let now = Timestamp.iso8601(Date())
        guard let match = matcher.match(command.brand) else {
            return .json(
                200,
                ResolveComparableResponse(
                    brand: Brand(name: command.brand, isPublic: false), comparables: [],
                    etfs: SeedInvestable.sectorETFs(command.hintSector ?? command.brand, fetchedAt: now)))
        }
        let investable = SeedInvestable.make(match: match, name: command.brand, confidence: .high, fetchedAt: now)
        return .json(
            200,
            ResolveComparableResponse(
                brand: investable.brand, comparables: [],
                etfs: SeedInvestable.sectorETFs(command.hintSector ?? match.entry.sector, fetchedAt: now)))
    }
}

extension SeedInvestable {
    /// The fixed top-3 sector ETFs (`manual/medium`), the contract's fallback for ETF exposure.
    static func sectorETFs(_ sectorOrQuery: String, fetchedAt: String) -> [EtfExposure] {
        SectorETFs.fallback(sectorOrQuery: sectorOrQuery).map {
            EtfExposure(
                ticker: $0.ticker, name: $0.name, weight: 0,
                source: Source(provider: .manual, fetchedAt: fetchedAt, confidence: .medium))
        }
    }
}
