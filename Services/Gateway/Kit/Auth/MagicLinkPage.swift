import HTTPServer

/// The small HTML page a browser shows for an opened magic link. The link is single use and carries a token in its
/// URL, so nothing is cached and no referrer leaves the page; the page loads nothing and runs no script.
enum MagicLinkPage {
    static let privateHeaders: [(String, String)] = [("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")]

    static let pageHeaders: [(String, String)] =
        privateHeaders + [
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
            ("X-Content-Type-Options", "nosniff"),
        ]

    /// Whether `Accept` asks for JSON rather than a page (an app opening the link itself).
    static func prefersJSON(_ accept: String?) -> Bool {
        guard let accept = accept?.lowercased() else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    static func response(for outcome: AuthRoutes.MagicLinkOutcome) -> HTTPResponse {
        switch outcome {
        case .signedIn(_, let email):
            return page(
                200, title: "You're signed in",
                message: "Signed in to Mapvest as \(escaped(email)). You can close this page and go back to the app.")
        case .rejected(let status, _) where status == 503:
            return page(503, title: "Sign-in is unavailable", message: "Please try the link again in a minute.")
        case .rejected(let status, _) where status == 400:
            return page(
                400, title: "This link is incomplete",
                message: "Open the whole link from your email, or request a new one in the app.")
        case .rejected(let status, _):
            return page(
                status, title: "This link has expired",
                message: "Sign-in links work once and for 10 minutes. Request a new one in the Mapvest app.")
        }
    }

    private static func page(_ status: Int, title: String, message: String) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Mapvest</title>
            <style>body{font-family:-apple-system,system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#111}</style>
            </head><body><h1>\(title)</h1><p>\(message)</p></body></html>

            """
        return .text(status, html, contentType: "text/html; charset=utf-8", headers: pageHeaders)
    }

    /// `&`, `<`, `>`, `"` and `'` as HTML entities.
    static func escaped(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
