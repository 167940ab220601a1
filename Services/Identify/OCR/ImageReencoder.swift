import CTesseract
import Dispatch
import Synchronization

/// A photo rewritten from its pixels alone: a fresh baseline JPEG.
public struct ReencodedPhoto: Sendable, Equatable {
    public let jpeg: [UInt8]
    public let width: Int
    public let height: Int
}

/// Why a photo could not be rewritten.
public enum ReencodeError: Error, Sendable, Equatable {
    /// Not a PNG, JPEG or WebP Leptonica can decode at an accepted size (`ImageHeader`), or the decode failed.
    case unreadableImage
    /// Too many photos already wait for the encoder.
    case busy
}

/// Decodes an uploaded photo (PNG, JPEG, WebP) with Leptonica and writes its pixels as a new JPEG, so nothing of the
/// upload but its pixels survives: no EXIF, XMP, ICC or comment segment (a GPS position never travels on), no bytes
/// after the image (a script appended to a valid image is gone). The larger side is scaled down to `maxSide`, and
/// further (by 0.7 at a time) while the JPEG exceeds `maxBytes`, so a stored photo fits one Kafka reply.
/// Each Leptonica image lives inside one call on the encoder's own serial queue, never on the cooperative pool.
public final class ImageReencoder: Sendable {
    /// JPEG quality of the rewritten photo.
    static let quality: Int32 = 85

    private let queue = DispatchQueue(label: "photo-reencode")
    private let waiting = Mutex(0)
    private let maxQueued: Int
    private let maxSide: Int
    private let maxBytes: Int

    /// `maxQueued` photos may wait at once; more are refused with `.busy`.
    public init(maxSide: Int = 2048, maxBytes: Int = 750_000, maxQueued: Int = 16) {
        _ = setMsgSeverity(6)  // Leptonica: L_SEVERITY_NONE (no stderr chatter on bad images)
        self.maxSide = max(16, maxSide)
        self.maxBytes = max(4096, maxBytes)
        self.maxQueued = max(1, maxQueued)
    }

    /// The photo rewritten; throws `.unreadableImage` at once when the header is not one Leptonica decodes at an
    /// accepted size, and `.busy` at once when the queue is full.
    public func reencode(_ image: [UInt8]) async throws -> ReencodedPhoto {
        guard let header = ImageHeader.parse(image), header.isDecodableByOCR else {
            throw ReencodeError.unreadableImage
        }
        let admitted = waiting.withLock { count -> Bool in
            guard count < maxQueued else { return false }
            count += 1
            return true
        }
        guard admitted else { throw ReencodeError.busy }
        defer { waiting.withLock { $0 -= 1 } }
        let (maxSide, maxBytes) = (self.maxSide, self.maxBytes)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<ReencodedPhoto?, Never>) in
            queue.async { continuation.resume(returning: Self.rewrite(image, maxSide: maxSide, maxBytes: maxBytes)) }
        }
        guard let result else { throw ReencodeError.unreadableImage }
        return result
    }

    /// Blocking: decode, then encode at `maxSide` and smaller until the JPEG fits `maxBytes`.
    private static func rewrite(_ image: [UInt8], maxSide: Int, maxBytes: Int) -> ReencodedPhoto? {
        var pix = image.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        guard let loaded = pix else { return nil }
        defer { pixDestroy(&pix) }
        var side = min(Int(max(pixGetWidth(loaded), pixGetHeight(loaded))), maxSide)
        while side >= 64 {
            guard let photo = encode(loaded, side: side) else { return nil }
            if photo.jpeg.count <= maxBytes { return photo }
            side = side * 7 / 10
        }
        return nil
    }

    /// Blocking: `pix` scaled so its larger side is at most `side`, without the text Leptonica kept from a JPEG
    /// comment, as a baseline JPEG.
    private static func encode(_ pix: OpaquePointer, side: Int) -> ReencodedPhoto? {
        let largest = Int(max(pixGetWidth(pix), pixGetHeight(pix)))
        guard largest > 0 else { return nil }
        var scaled: OpaquePointer? = nil
        if largest > side {
            let factor = Float(side) / Float(largest)
            scaled = pixScale(pix, factor, factor)
            guard scaled != nil else { return nil }
        }
        defer { if scaled != nil { pixDestroy(&scaled) } }
        let output = scaled ?? pix
        _ = pixSetText(output, nil)
        var data: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        guard pixWriteMemJpeg(&data, &size, output, quality, 0) == 0, let data else { return nil }
        defer { lept_free(data) }
        return ReencodedPhoto(
            jpeg: Array(UnsafeBufferPointer(start: data, count: size)), width: Int(pixGetWidth(output)),
            height: Int(pixGetHeight(output)))
    }
}
