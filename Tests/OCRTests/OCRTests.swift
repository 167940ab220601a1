import Foundation
import OCR
import Runtime
import Testing

/// Real Tesseract on images drawn by ImageMagick (installed by the test command).
struct OCRTests {
    static func draw(_ text: String, extra: [String] = []) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments =
            ["-size", "900x320", "xc:white", "-font", "DejaVu-Sans-Bold", "-pointsize", "130", "-fill", "black",
             "-annotate", "+30+220", text] + extra + [path]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func readsALegibleBrandName() async throws {
        let recognizer = try TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        let text = try await recognizer.recognize(try Self.draw("STARBUCKS"))
        #expect(text.lines.contains { $0.uppercased().contains("STARBUCKS") })
    }

    @Test func readsARotatedBlurredSign() async throws {
        let recognizer = try TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        let image = try Self.draw("TARGET", extra: ["-rotate", "3", "-blur", "0x1"])
        let text = try await recognizer.recognize(image)
        #expect(text.lines.joined(separator: " ").uppercased().contains("TARGET"))
    }

    @Test func garbageIsUnreadableNotACrash() async throws {
        let recognizer = try TextRecognizer.make(workers: 1, logger: Logger(label: "ocr", sink: .memory()))
        defer { recognizer.shutdown() }
        await #expect(throws: OCRError.self) { try await recognizer.recognize(Array("not an image".utf8)) }
        await #expect(throws: OCRError.self) { try await recognizer.recognize([]) }
    }
}
