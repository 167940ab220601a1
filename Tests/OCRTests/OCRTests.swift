import Foundation
import OCR
import Runtime
import TestSupport
import Testing

/// Real Tesseract on images drawn by ImageMagick (installed by the test command).
struct OCRTests {
    @Test func readsALegibleBrandName() async throws {
        let recognizer = TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        let text = try await recognizer.recognize(try await TestImages.draw("STARBUCKS"))
        #expect(text.lines.contains { $0.uppercased().contains("STARBUCKS") })
    }

    @Test func readsARotatedBlurredSign() async throws {
        let recognizer = TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        let image = try await TestImages.draw("TARGET", extra: ["-rotate", "3", "-blur", "0x1"])
        let text = try await recognizer.recognize(image)
        #expect(text.lines.joined(separator: " ").uppercased().contains("TARGET"))
    }

    @Test func garbageIsUnreadableNotACrash() async throws {
        let recognizer = TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        await #expect(throws: OCRError.self) { try await recognizer.recognize(Array("not an image".utf8)) }
        await #expect(throws: OCRError.self) { try await recognizer.recognize([]) }
    }
}
