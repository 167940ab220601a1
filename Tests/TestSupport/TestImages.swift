import Foundation

/// Images drawn by ImageMagick (installed by the test command) for OCR tests.
public enum TestImages {
    /// A 900×320 image (PNG unless `format` names another, e.g. `jpg`) with `text` in large black letters; `extra`
    /// adds ImageMagick operations (rotate, blur…).
    public static func draw(_ text: String, extra: [String] = [], format: String = "png") async throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString).\(format)")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let arguments =
            [
                "-size", "900x320", "xc:white", "-font", "DejaVu-Sans-Bold", "-pointsize", "130", "-fill", "black",
                "-annotate", "+30+220", text,
            ] + extra + [path]
        try await convert(arguments)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Runs ImageMagick's `convert` (off the cooperative pool); throws with its message when it fails.
    public static func convert(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run("/usr/bin/convert", arguments)
        guard result.status == 0 else {
            throw RawError(
                description: "convert exited \(result.status): \(String(decoding: result.errors, as: UTF8.self))")
        }
    }
}
