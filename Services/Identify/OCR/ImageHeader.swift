/// The format and pixel size of an encoded image, read from its first bytes only (no decoding): a cheap check
/// that keeps photos OCR cannot decode away from its workers.
public struct ImageHeader: Sendable, Equatable {
    public enum Format: String, Sendable { case png, jpeg, webp, heic }

    public let format: Format
    /// Pixel size; nil when the header does not say it cheaply (HEIC keeps it deep in its `meta` box).
    public let width: Int?
    public let height: Int?

    /// Largest side and pixel count OCR accepts (bounds decode memory and time).
    static let maxSide = 16_384
    static let maxPixels = 50_000_000

    /// Parses the header; nil when the bytes are none of the formats or the header is cut short or inconsistent.
    public static func parse(_ bytes: [UInt8]) -> ImageHeader? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(bytes) }
        if bytes.count >= 12, bytes[0..<4].elementsEqual(Array("RIFF".utf8)),
            bytes[8..<12].elementsEqual(Array("WEBP".utf8))
        {
            return webp(bytes)
        }
        if bytes.count >= 12, bytes[4..<8].elementsEqual(Array("ftyp".utf8)) { return heic(bytes) }
        return nil
    }

    /// Whether Tesseract's image library (Leptonica: PNG, JPEG, WebP) can decode it at a size OCR accepts.
    public var isDecodableByOCR: Bool {
        guard format != .heic, let width, let height else { return false }
        return (1...Self.maxSide).contains(width) && (1...Self.maxSide).contains(height)
            && width * height <= Self.maxPixels
    }

    // PNG: the first chunk is IHDR with big-endian width and height.
    private static func png(_ b: [UInt8]) -> ImageHeader? {
        guard b.count >= 24, b[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        return ImageHeader(format: .png, width: be32(b, 16), height: be32(b, 20))
    }

    // JPEG: walk the marker segments up to the first start-of-frame (SOF0…SOF15 except DHT, JPG, DAC).
    private static func jpeg(_ b: [UInt8]) -> ImageHeader? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF {  // fill byte
                i += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {  // no length
                i += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image or scan before any frame
            let length = be16(b, i + 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 9 <= b.count else { return nil }
                return ImageHeader(format: .jpeg, width: be16(b, i + 7), height: be16(b, i + 5))
            }
            i += 2 + length
        }
        return nil
    }

    // WebP: lossy (VP8 key frame), lossless (VP8L) or extended (VP8X canvas size).
    private static func webp(_ b: [UInt8]) -> ImageHeader? {
        guard b.count >= 30 else { return nil }
        let chunk = String(decoding: b[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return ImageHeader(format: .webp, width: le16(b, 26) & 0x3FFF, height: le16(b, 28) & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
            return ImageHeader(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return ImageHeader(format: .webp, width: le24(b, 24) + 1, height: le24(b, 27) + 1)
        default:
            return nil
        }
    }

    // HEIF family: an `ftyp` box whose major brand is an image brand.
    private static func heic(_ b: [UInt8]) -> ImageHeader? {
        let brand = String(decoding: b[8..<12], as: UTF8.self)
        guard ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif"].contains(brand) else {
            return nil
        }
        return ImageHeader(format: .heic, width: nil, height: nil)
    }

    private static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> Int { be16(b, i) << 16 | be16(b, i + 2) }
    private static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func le24(_ b: [UInt8], _ i: Int) -> Int { le16(b, i) | Int(b[i + 2]) << 16 }
}
