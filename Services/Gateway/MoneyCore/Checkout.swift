/// Where a checkout goes: Stripe Checkout, or the native store whose product id is configured.
public enum CheckoutChannel: String, Sendable, Equatable, Codable {
    case stripe
    case appleIAP = "apple_iap"
    case googlePlay = "google_play"

    /// `ios` with an App Store product → App Store; `android` with a Play product → Play; everything else
    /// (`web`, an unknown or missing platform, a native platform with no product) → Stripe.
    public static func choose(platform: String?, appleProductId: String?, playProductId: String?) -> (
        CheckoutChannel, productId: String?
    ) {
        if platform == "ios", let appleProductId { return (.appleIAP, appleProductId) }
        if platform == "android", let playProductId { return (.googlePlay, playProductId) }
        return (.stripe, nil)
    }
}

/// Which return URLs Stripe is given: only `https://mapvest.app` or `https://www.mapvest.app` (any path and query);
/// anything else (app schemes included, which Stripe refuses) falls back to the configured URL.
public enum ReturnURL {
    public static func choose(_ candidate: String?, fallback: String) -> String {
        guard let candidate, isAllowed(candidate) else { return fallback }
        return candidate
    }

    public static func isAllowed(_ url: String) -> Bool {
        for host in ["https://mapvest.app", "https://www.mapvest.app"] where url.hasPrefix(host) {
            let rest = url.dropFirst(host.count)
            guard rest.isEmpty || rest.first == "/" || rest.first == "?" else { continue }
            return rest.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }
        }
        return false
    }
}
