import OCR
import TestSupport
import Testing

/// The company-photo encoder on real JPEGs drawn by ImageMagick, with GPS EXIF, XMP and appended scripts spliced in
/// by hand; the output is checked by walking its JPEG segments.
struct ImageReencoderTests {
    @Test func gpsExifAndXmpDoNotSurvive() async throws {
        let drawn = try await TestImages.draw("CAFE", format: "jpg")
        let tagged = JPEGBytes.inserting([JPEGBytes.gpsExif, JPEGBytes.xmp], into: drawn)
        let before = try #require(JPEGBytes.segments(tagged))
        #expect(before.contains { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif\0\0".utf8)) })
        #expect(JPEGBytes.contains(tagged, "GPS"))

        let photo = try await ImageReencoder().reencode(tagged)
        let after = try #require(JPEGBytes.segments(photo.jpeg))
        #expect(!after.contains { $0.marker == 0xE1 || $0.marker == 0xE2 || $0.marker == 0xFE })
        #expect(!JPEGBytes.contains(photo.jpeg, "Exif") && !JPEGBytes.contains(photo.jpeg, "GPS"))
        #expect(!JPEGBytes.contains(photo.jpeg, "xap/1.0"))
        #expect(photo.width == 900 && photo.height == 320)
        #expect(Array(photo.jpeg.suffix(2)) == [0xFF, 0xD9])
    }

    @Test func aScriptAfterTheImageIsGone() async throws {
        let drawn = try await TestImages.draw("SHOP", format: "jpg")
        let polyglot = drawn + Array("<script>alert(document.cookie)</script>".utf8)
        let photo = try await ImageReencoder().reencode(polyglot)
        #expect(!JPEGBytes.contains(photo.jpeg, "<script"))
        #expect(Array(photo.jpeg.suffix(2)) == [0xFF, 0xD9])
        #expect(JPEGBytes.segments(photo.jpeg) != nil)
    }

    @Test func aJPEGHeaderInFrontOfAScriptIsRefused() async throws {
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8)
        let fake = header + [UInt8](repeating: 0, count: 9) + Array("<?php system($_GET['c']); ?>".utf8)
        await #expect(throws: ReencodeError.unreadableImage) { try await ImageReencoder().reencode(fake) }
        await #expect(throws: ReencodeError.unreadableImage) { try await ImageReencoder().reencode([]) }
    }

    @Test func aLargePhotoIsScaledDown() async throws {
        let drawn = try await TestImages.draw("BIG", extra: ["-resize", "3000x1000!"], format: "png")
        let photo = try await ImageReencoder(maxSide: 1500).reencode(drawn)
        #expect(photo.width == 1500 && photo.height == 500)
    }
}
