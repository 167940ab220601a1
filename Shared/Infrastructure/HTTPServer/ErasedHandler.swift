/// A request's `handle(_:state:)` with the state of the decision that admitted it already bound.
typealias BoundHandle = @Sendable (HTTPRequest) async -> HTTPResponse

/// The lifecycle every connection of a server runs: its admitting decisions carry the bound handle.
typealias Lifecycle = RequestLifecycle<BoundHandle>

/// An `HTTPHandler` whose `RequestState` is bound into the call that handles the body, so the server stores no
/// state of an unknown type and never casts one back.
struct ErasedHandler: Sendable {
    let immediate: @Sendable (HTTPRequestHead) -> HTTPResponse?
    let head: @Sendable (HTTPRequestHead) async -> HeadDecision<BoundHandle>

    init<Handler: HTTPHandler>(_ handler: Handler) {
        immediate = { handler.immediate($0) }
        head = { head in
            switch await handler.head(head) {
            case .respond(let response):
                return .respond(response)
            case .readBody(let limit, let tooLarge, let state):
                return .readBody(
                    limit: limit, tooLarge: tooLarge, state: { request in await handler.handle(request, state: state) })
            }
        }
    }
}
