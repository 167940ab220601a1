import CTesseract
import Foundation
import Runtime
import Synchronization
import Tracing

/// What OCR read from a photo.
public struct RecognizedText: Sendable, Equatable {
    /// Non-empty lines of text, trimmed, in reading order.
    public var lines: [String]
    /// Tesseract's mean word confidence, 0–100.
    var meanConfidence: Int
}

public struct OCRError: Error, CustomStringConvertible {
    public enum Kind: Sendable { case unreadableImage, engineUnavailable, busy }
    public let kind: Kind
    public var description: String { "ocr: \(kind)" }
}

/// Offline text recognition with Tesseract. Each worker is a dedicated thread that owns one `TessBaseAPI`
/// (the handle is not thread-safe), so recognition never runs on the cooperative pool.
public final class TextRecognizer: Sendable {
    private let queue: JobQueue

    private init(queue: JobQueue) { self.queue = queue }

    /// Starts `workers` threads with English data from `dataPath` (nil = Tesseract's default location). Each worker
    /// loads its engine on its first photo, so an idle service does not hold the language model in memory; a worker
    /// whose engine cannot load fails its jobs with `.engineUnavailable` (and says so in the log).
    public static func make(workers: Int, dataPath: String? = nil, maxQueued: Int = 64, logger: Logger)
        -> TextRecognizer
    {
        setenv("OMP_THREAD_LIMIT", "1", 0)
        _ = setMsgSeverity(6)  // Leptonica: L_SEVERITY_NONE (no stderr chatter on bad images)
        let count = max(1, workers)
        let queue = JobQueue(maxQueued: maxQueued, workers: count)
        for index in 0..<count {
            let thread = Thread { queue.work(dataPath: dataPath, logger: logger) }
            thread.name = "ocr-\(index)"
            thread.start()
        }
        logger.info("ocr ready", [LogKeys.ocrWorkers: .int(count)])
        return TextRecognizer(queue: queue)
    }

    /// Reads the text of an encoded image (PNG, JPEG, WebP). Throws `.unreadableImage` at once, without taking a
    /// worker, when the header is not one of those at a sane size (`ImageHeader`), and `.busy` at once when too many
    /// photos wait.
    public func recognize(_ image: [UInt8]) async throws -> RecognizedText {
        guard let header = ImageHeader.parse(image), header.isDecodableByOCR else {
            throw OCRError(kind: .unreadableImage)
        }
        return try await Tracing.withChildSpan(
            "ocr recognize", kind: .internal,
            attributes: [Attribute("mapvest.ocr.image_size", .int(Int64(image.count)))]
        ) { span in
            let text = try await withCheckedThrowingContinuation { continuation in
                queue.submit(Job(image: image, continuation: continuation))
            }
            span?.setAttribute("mapvest.ocr.lines", .int(Int64(text.lines.count)))
            return text
        }
    }

    /// Stops the workers after the queued jobs.
    public func shutdown() { queue.close() }
}

private struct Job: Sendable {
    let image: [UInt8]
    let continuation: CheckedContinuation<RecognizedText, any Error>
}

/// A bounded FIFO of jobs that worker threads block on (they are not cooperative-pool threads).
private final class JobQueue: Sendable {
    private struct State {
        var jobs: [Job] = []
        var closed = false
    }
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let maxQueued: Int
    private let workers: Int

    init(maxQueued: Int, workers: Int) {
        self.maxQueued = maxQueued
        self.workers = workers
    }

    func submit(_ job: Job) {
        let accepted = state.withLock { s -> Bool in
            guard !s.closed, s.jobs.count < maxQueued else { return false }
            s.jobs.append(job)
            return true
        }
        if accepted { available.signal() } else { job.continuation.resume(throwing: OCRError(kind: .busy)) }
    }

    func close() {
        state.withLock { $0.closed = true }
        for _ in 0..<workers { available.signal() }
    }

    func work(dataPath: String?, logger: Logger) {
        var engine: TesseractEngine?
        var loadFailed = false
        while true {
            available.wait()
            let next = state.withLock { s -> Job?? in
                if !s.jobs.isEmpty { return .some(s.jobs.removeFirst()) }
                return s.closed ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let job?):
                if engine == nil && !loadFailed {
                    engine = TesseractEngine.make(dataPath: dataPath)
                    loadFailed = engine == nil
                    if loadFailed { logger.error("tesseract could not load its English data; OCR is unavailable") }
                }
                guard let engine else {
                    job.continuation.resume(throwing: OCRError(kind: .engineUnavailable))
                    continue
                }
                if let text = engine.read(job.image) {
                    job.continuation.resume(returning: text)
                } else {
                    job.continuation.resume(throwing: OCRError(kind: .unreadableImage))
                }
            }
        }
    }
}

/// Owns one Tesseract handle; used only by the worker thread it was given to.
private final class TesseractEngine: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Photos wider or taller than this are scaled down first (phone photos are far larger than OCR needs).
    private let maxSide: Int32 = 1800

    private init(handle: OpaquePointer) { self.handle = handle }

    static func make(dataPath: String?) -> TesseractEngine? {
        guard let handle = TessBaseAPICreate() else { return nil }
        let status = TessBaseAPIInit3(handle, dataPath, "eng")
        guard status == 0 else {
            TessBaseAPIDelete(handle)
            return nil
        }
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        TessBaseAPISetPageSegMode(handle, PSM_SPARSE_TEXT)
        return TesseractEngine(handle: handle)
    }

    func read(_ image: [UInt8]) -> RecognizedText? {
        guard !image.isEmpty else { return nil }
        var pix = image.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        guard let loaded = pix else { return nil }
        defer { pixDestroy(&pix) }
        let width = pixGetWidth(loaded)
        let height = pixGetHeight(loaded)
        var scaled: OpaquePointer? = nil
        if max(width, height) > maxSide {
            let factor = Float(maxSide) / Float(max(width, height))
            scaled = pixScale(loaded, factor, factor)
        }
        defer { if scaled != nil { pixDestroy(&scaled) } }
        TessBaseAPISetImage2(handle, scaled ?? loaded)
        TessBaseAPISetSourceResolution(handle, 300)
        defer { TessBaseAPIClear(handle) }
        guard let raw = TessBaseAPIGetUTF8Text(handle) else { return nil }
        defer { TessDeleteText(raw) }
        let text = String(cString: raw)
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return RecognizedText(lines: lines, meanConfidence: Int(TessBaseAPIMeanTextConf(handle)))
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }
}
