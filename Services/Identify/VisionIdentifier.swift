import Contracts
import Foundation
import IdentifyCore
import OpenRouter
import Runtime

/// The vision step (docs/COMPATIBILITY.md#openrouter): OpenRouter chat completions with the photo, asking for visible
/// text and up to 20 brand detections; the model chain falls through on any failure. Every model string is scrubbed.
struct VisionIdentifier: Sendable {
    let client: OpenRouterClient
    /// The first model's share of the identify budget (up to 12 s, `VISION_MODEL_TIMEOUT_MS`).
    let firstModelTimeout: Duration

    private struct Answer: Decodable, Sendable {
        struct Item: Decodable, Sendable {
            let brand: String?
            let product: String?
            let sector: String?
            let confidence: String?
        }
        let visibleText: [String]?
        let detected: [Item]?
    }

    static let systemPrompt = """
        You identify investable brands in a photo taken by a phone camera. Answer strict JSON: \
        {"visibleText": [strings read in the photo], "detected": [{"brand": string?, "product": string?, \
        "sector": string? (GICS sector name), "confidence": "high"|"medium"|"low"}], "modelUsed": string}. \
        List at most 20 detections, most prominent first. Only name a brand you can see or read; never invent one.
        """

    var isConfigured: Bool { client.isConfigured }

    /// The reading, or nil when every model failed (the caller falls back to OCR).
    func read(jpeg: [UInt8], location: LatLng?, hint: String?, deadline: ContinuousClock.Instant) async -> PhotoReading?
    {
        var text =
            location.map { "The photo was taken near lat=\($0.lat), lng=\($0.lng)." }
            ?? "Identify the brands, products and storefronts in this photo."
        if let hint { text += "\nThe user says: \"\(hint)\"" }
        let outcome = await client.chatJSON(
            decoding: Answer.self, models: OpenRouterModels.vision, system: Self.systemPrompt,
            user: .textAndJPEG(text, jpeg: jpeg), temperature: nil, timeoutPerModel: firstModelTimeout,
            deadline: deadline, feature: "vision")
        guard let result = outcome.result else { return nil }
        let detections = (result.value.detected ?? []).prefix(20).map { item in
            Detection(
                brand: TextScrubber.clean(item.brand), product: TextScrubber.clean(item.product),
                sector: TextScrubber.clean(item.sector),
                confidence: Confidence(rawValue: item.confidence?.lowercased() ?? "") ?? .medium)
        }
        return PhotoReading(
            visibleText: (result.value.visibleText ?? []).prefix(40).compactMap { TextScrubber.clean($0) },
            detected: Array(detections), modelUsed: result.modelUsed)
    }
}

/// Scrubs text read from a photo (by a model or OCR): control characters removed, whitespace collapsed, length capped.
enum TextScrubber {
    static let maxLength = 120

    static func clean(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let scalars = raw.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) }
        let collapsed = String(scalars).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !collapsed.isEmpty else { return nil }
        return String(collapsed.prefix(maxLength))
    }
}
