import Contracts
import Finance
import FoundationEssentials
import IdentifyCore
import Messaging
import OCR
import Resolver
import Runtime

/// Turns one identify command into an `IdentifyResponse` (docs/COMPATIBILITY.md#identify-processing): vision when
/// OpenRouter is configured, else (or when every model fails) Tesseract OCR matched against the curated seed, then the
/// hint as words the user read for us; then investables with sources, rarity and Jev's verdict.
struct PhotoIdentifier: Sendable {
    typealias Path = IdentifyPath

    struct Outcome: Sendable {
        let response: IdentifyResponse
        let path: Path
    }

    let vision: VisionIdentifier
    let ocr: TextRecognizer?
    let resolver: InvestableResolver
    let verdicts: VerdictAttacher
    /// For signed-in callers: the default watchlist, read within 500 ms.
    let watchlist: WatchlistLookup?
    let fallback = ReadingFallback()
    let logger: Logger

    /// `photo` is the claim-checked image (the caller answers 503 when it is gone: never a "no match" without it).
    func identify(_ command: IdentifyPhotoCommand, photo: [UInt8], deadline: ContinuousClock.Instant) async -> Outcome {
        let (reading, path) = await read(photo: photo, command: command, deadline: deadline)
        var investables = await resolver.investables(for: reading.detected, citeVision: path == .vision)
        var onWatchlist: Set<String>?
        if let userId = command.userId, let watchlist {
            onWatchlist = await watchlist.watchlisted(
                userId: userId, tickers: Array(Set(investables.compactMap(VerdictAttacher.watchTicker))))
        }
        investables = await verdicts.attach(investables, onWatchlist: onWatchlist)
        return Outcome(
            response: IdentifyResponse(
                identification: Identification(
                    visibleText: reading.visibleText, detected: reading.detected, location: command.location,
                    modelUsed: reading.modelUsed),
                investables: investables),
            path: path)
    }

    private func read(photo: [UInt8], command: IdentifyPhotoCommand, deadline: ContinuousClock.Instant) async
        -> (PhotoReading, Path)
    {
        if vision.isConfigured {
            if let reading = await vision.read(
                jpeg: photo, location: command.location, hint: command.hint, deadline: deadline)
            {
                return (reading, .vision)
            }
            logger.warning("every vision model failed; falling back to OCR")
        }
        var lines: [String] = []
        var ocrRan = false
        if let ocr {
            do {
                lines = try await ocr.recognize(photo).lines.compactMap { TextScrubber.clean($0) }
                ocrRan = true
            } catch {
                logger.info("ocr read nothing", [LogKeys.error: "\(error)"])
            }
        }
        return fallback.reading(ocrLines: lines, ocrRan: ocrRan, hint: command.hint)
    }

    /// `POST /v1/resolve-comparable` (docs/COMPATIBILITY.md#resolve-comparable): the brand from `resolveTicker`;
    /// comparables only for a private brand; ETF exposure always.
    func resolveComparable(_ command: ResolveComparableCommand) async -> Reply {
        let resolution = await resolver.tickers.resolve(command.brand)
        async let comparables =
            resolution.brand.isPublic
            ? [] : resolver.comparables.resolve(brand: command.brand, hintSector: command.hintSector)
        async let etfs = resolver.etfs.resolve(command.hintSector ?? command.brand)
        return .json(
            200, ResolveComparableResponse(brand: resolution.brand, comparables: await comparables, etfs: await etfs))
    }
}
