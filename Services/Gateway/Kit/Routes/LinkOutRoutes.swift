import HTTPServer

/// `GET /v1/options` and `GET /v1/underlying`: fixed link-outs to sibling projects, answered here (no I/O, so no
/// service hop), with the contract's long `Cache-Control`. Under the global limiter, not the market-data one.
enum LinkOutRoutes {
    static let cacheControl = "public, max-age=300, stale-while-revalidate=3600"

    struct OptionsLinkOut: Encodable {
        let ticker: String
        let linkOut = "https://github.com/jawauntb/option_derivation"
        let note = "options derivation deferred to v0.2"
    }

    struct UnderlyingLinkOut: Encodable {
        let linkOut = "https://underlying-terminal-production.up.railway.app/"
        let note = "underlying-analyzer link-out — live sibling instance"
        let brand: String?
        let sector: String?
    }

    static var routes: [Route] {
        [
            Route("GET", "/v1/options") { context in
                guard let ticker = context.request.head.query["ticker"], !ticker.isEmpty else {
                    return .error(400, "ticker required")
                }
                return .json(200, OptionsLinkOut(ticker: ticker), headers: [("Cache-Control", cacheControl)])
            },
            Route("GET", "/v1/underlying") { context in
                let query = context.request.head.query
                return .json(
                    200, UnderlyingLinkOut(brand: query["brand"], sector: query["sector"]),
                    headers: [("Cache-Control", cacheControl)])
            },
        ]
    }
}
