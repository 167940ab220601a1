/// JPEG segments read and written by hand, for tests that must see what a stored photo carries.
public enum JPEGBytes {
    /// One marker segment before the scan: its marker byte (e.g. 0xE1 for APP1) and payload.
    public struct Segment: Sendable, Equatable {
        public let marker: UInt8
        public let payload: [UInt8]
    }

    /// The segments from SOI up to SOS, or nil when the bytes are not a JPEG's segment layout.
    public static func segments(_ bytes: [UInt8]) -> [Segment]? {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var found: [Segment] = []
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            found.append(Segment(marker: marker, payload: Array(bytes[(index + 4)..<(index + 2 + length)])))
            if marker == 0xDA { return found }
            index += 2 + length
        }
        return nil
    }

    /// `jpeg` with `segments` (whole, marker included) placed right after its SOI.
    public static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segments.flatMap { $0 } + Array(jpeg.dropFirst(2))
    }

    /// Whether `text`'s bytes occur anywhere in `bytes`.
    public static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// An APP1 Exif segment (big-endian TIFF) whose IFD0 points at a GPS IFD: latitude 40°44'30" N.
    public static let gpsExif: [UInt8] = {
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + be32(8)
        tiff += be16(1) + be16(0x8825) + be16(4) + be32(1) + be32(26) + be32(0)  // IFD0: GPSInfo → 26
        tiff += be16(2)  // GPS IFD at 26: two entries, then the rationals at 56
        tiff += be16(0x0001) + be16(2) + be32(2) + Array("N".utf8) + [0, 0, 0]
        tiff += be16(0x0002) + be16(5) + be32(3) + be32(56) + be32(0)
        tiff += be32(40) + be32(1) + be32(44) + be32(1) + be32(30) + be32(1)
        return segment(0xE1, Array("Exif\0\0".utf8) + tiff)
    }()

    /// An APP1 XMP packet naming a GPS position.
    public static let xmp: [UInt8] = segment(
        0xE1,
        Array("http://ns.adobe.com/xap/1.0/\0".utf8)
            + Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><exif:GPSLatitude>40,44.5N</exif:GPSLatitude>"#.utf8)
            + Array("</x:xmpmeta>".utf8))

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }
    private static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    private static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
}
