/// A failure the client sees: an HTTP status and the exact message of the flat `{"error": "…"}` body the iOS client
/// reads. Declared once here and used by the gateway and the services alike, so the same failure reads the same on
/// both sides of a Kafka hop; the body is written in one place (`JSONText.errorBody`, reached through `Reply.error`
/// in the services and the gateway's `HTTPResponse.error`).
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status (4xx or 5xx).
    public let status: Int
    /// The `error` text, exactly as clients match it.
    public let message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(message)" }
}

// The failures more than one place answers. A message used once may stay inline at its one site.
extension APIError {
    // Any route.
    public static let internalError = APIError(500, "internal error")
    public static let notFound = APIError(404, "not found")
    public static let requestBodyTooLarge = APIError(413, "request body too large")
    public static let deviceIdRequired = APIError(400, "X-Device-Id header required for anonymous requests")

    // Accounts and sign-in.
    public static let unknownUser = APIError(401, "unknown user")
    public static let wrongTokenPurpose = APIError(401, "wrong token purpose")
    public static let signInUnavailable = APIError(503, "sign-in unavailable")
    public static let emailRequired = APIError(400, "email required")

    // Tickers, watchlists, briefs.
    public static let tickerRequired = APIError(400, "ticker required")
    public static let tickerRequiredExample = APIError(400, "ticker required (e.g. MCD)")
    public static let tickersRequired = APIError(400, "tickers required (non-empty array of symbols)")
    public static let invalidSymbol = APIError(400, "invalid symbol")
    public static let listNotFound = APIError(404, "list not found")
    public static let tickerNotInWatchlist = APIError(404, "ticker not in watchlist")
    public static let savedBriefNotFound = APIError(404, "saved brief not found")
    public static let latLngRequired = APIError(400, "lat/lng required")

    // Research chat.
    public static let conversationNotFound = APIError(404, "conversation not found")
    public static let messageRequired = APIError(400, "message required (1-4000 chars)")
    public static let researchStoreUnavailable = APIError(503, "research store unavailable")

    // Push.
    public static let tokenNotFound = APIError(404, "token not found")
    public static let validTokenIdRequired = APIError(400, "valid tokenId required")
    public static let validExpoTokenRequired = APIError(400, "valid ExponentPushToken required")
    public static let validTokenIdAndExpoTokenRequired = APIError(
        400, "valid tokenId and ExponentPushToken required")
    public static let validExpoTokenOrTokenIdRequired = APIError(
        400, "valid ExponentPushToken or opaque tokenId required")
    public static let tokenIdAndPrefsRequired = APIError(400, "tokenId and prefs object required")
    public static let windowSecondsOutOfRange = APIError(400, "windowSeconds must be 1-172800")

    // Photos.
    public static let photoStoreUnavailable = APIError(503, "photo store unavailable")
}
