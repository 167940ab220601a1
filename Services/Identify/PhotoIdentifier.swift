import Contracts
import Finance
import FoundationEssentials
import Messaging
import OCR
import Runtime

/// Turns one identify command into an `IdentifyResponse` (CONTRACT.md §a.3): vision when OpenRouter is configured,
/// else (or when every model fails) Tesseract OCR matched against the curated seed, then the hint as words the user
/// read for us; then investables with sources, rarity and Jev's verdict.
struct PhotoIdentifier: Sendable {
    /// Which path produced the identification (`identify.completed` events carry it).
    enum Path: String, Sendable {
        case vision, ocr, hint, none
    }

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
    let matcher = BrandMatcher.shared
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
            if let reading = await vision.read(jpeg: photo, location: command.location, hint: command.hint, deadline: deadline) {
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
        let visible = Array(lines.prefix(40))
        if let (match, text) = seedMatch(lines + (lines.count > 1 ? [lines.joined(separator: " ")] : [])) {
            return (reading(match, text: text, visible: visible, modelUsed: "ocr:tesseract"), .ocr)
        }
        if let hint = command.hint, let match = matcher.match(hint) {
            return (reading(match, text: hint, visible: visible, modelUsed: "hint:seed"), .hint)
        }
        return (PhotoReading(visibleText: visible, detected: [], modelUsed: ocrRan ? "ocr:tesseract" : "none"), .none)
    }

    /// Direct matches across all candidates first, then the longest substring match.
    private func seedMatch(_ candidates: [String]) -> (BrandMatcher.Match, String)? {
        for text in candidates { if let m = matcher.direct(text) { return (m, text) } }
        for text in candidates { if let m = matcher.longestSubstring(text) { return (m, text) } }
        return nil
    }

    private func reading(_ match: BrandMatcher.Match, text: String, visible: [String], modelUsed: String) -> PhotoReading {
        PhotoReading(
            visibleText: visible,
            detected: [
                Detection(
                    brand: Self.displayName(of: match, in: text), sector: match.entry.sector,
                    confidence: match.method == .direct ? .high : .medium)
            ],
            modelUsed: modelUsed)
    }

    /// The brand as it was read: the matched words of `text` in their original case.
    static func displayName(of match: BrandMatcher.Match, in text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if match.method == .substring, let range = trimmed.range(of: match.key, options: .caseInsensitive) {
            return String(trimmed[range])
        }
        return trimmed
    }

    /// `POST /v1/resolve-comparable` (§c): the brand from `resolveTicker`; comparables only for a private brand;
    /// ETF exposure always.
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
