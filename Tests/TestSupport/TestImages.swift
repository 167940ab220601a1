import Foundation

/// Images drawn by ImageMagick (installed by the test command) for OCR tests.
public enum TestImages {
    /// A 900×320 PNG with `text` in large black letters; `extra` adds ImageMagick operations (rotate, blur…).
    public static func draw(_ text: String, extra: [String] = []) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments =
            [
                "-size", "900x320", "xc:white", "-font", "DejaVu-Sans-Bold", "-pointsize", "130", "-fill", "black",
                "-annotate", "+30+220", text,
            ] + extra + [path]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
