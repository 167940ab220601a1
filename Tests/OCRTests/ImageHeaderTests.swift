import Foundation
import OCR
import Runtime
import TestSupport
import Testing

/// The header check that keeps undecodable photos away from OCR workers, on images ImageMagick encodes.
struct ImageHeaderTests {
    /// The drawn 900×320 PNG re-encoded by ImageMagick as `format`.
    private func encoded(_ format: String) async throws -> [UInt8] {
        let png = try await TestImages.draw("STARBUCKS")
        let dir = FileManager.default.temporaryDirectory
        let source = dir.appendingPathComponent("hdr-\(UUID().uuidString).png")
        let target = dir.appendingPathComponent("hdr-\(UUID().uuidString).\(format)")
        defer { [source, target].forEach { try? FileManager.default.removeItem(at: $0) } }
        try Data(png).write(to: source)
        try await TestImages.convert([source.path, target.path])
        return Array(try Data(contentsOf: target))
    }

    @Test(arguments: [("png", ImageHeader.Format.png), ("jpg", .jpeg), ("webp", .webp)])
    func readsFormatAndSizeOfRealImages(_ suffix: String, _ format: ImageHeader.Format) async throws {
        let header = try #require(ImageHeader.parse(try await encoded(suffix)))
        #expect(header == ImageHeader.parse(try await encoded(suffix)))
        #expect(header.format == format)
        #expect(header.width == 900 && header.height == 320)
        #expect(header.isDecodableByOCR)
    }

    @Test func rejectsWhatOCRCannotDecode() {
        // A JPEG signature followed by junk (the benchmark's fake photo), text, nothing, a cut-short PNG.
        let fakes: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF, 0xE0] + Array("benchjpeg".utf8) + [0xFF, 0xD9], Array("not an image".utf8), [],
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13],
        ]
        for bytes in fakes { #expect(ImageHeader.parse(bytes)?.isDecodableByOCR != true) }
        // HEIC is recognised but not decodable by Tesseract's image library.
        let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        #expect(ImageHeader.parse(heic)?.format == .heic)
        #expect(ImageHeader.parse(heic)?.isDecodableByOCR == false)
        // A PNG claiming 100 000 × 100 000 pixels.
        var huge: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        huge += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0]
        #expect(ImageHeader.parse(huge)?.width == 100_000)
        #expect(ImageHeader.parse(huge)?.isDecodableByOCR == false)
    }

    @Test func undecodablePhotosNeverReachAWorker() async throws {
        // No room in the queue at all (any job would be refused as busy): an undecodable photo is refused as
        // unreadable, so the check ran before the queue and the worker.
        let recognizer = TextRecognizer.make(
            workers: 1, maxQueued: 0, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        do {
            _ = try await recognizer.recognize(Array("not an image".utf8))
            Issue.record("an undecodable photo was recognized")
        } catch let error as OCRError {
            #expect(error.kind == .unreadableImage)
        }
    }
}
