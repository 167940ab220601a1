import HTTPServer

/// The lifecycle under test: its decisions carry an optional string as the state `handle()` gets.
typealias Lifecycle = RequestLifecycle<String?>

/// Compact views of an action for assertions.
extension Lifecycle.Action {
    enum Kind: Equatable { case proceed, consume, tryImmediate, suspend, respond, abort }
    enum WorkKind: Equatable { case decide, headThenHandle, handle, decideThenHandle }

    var kind: Kind {
        switch self {
        case .proceed: .proceed
        case .consume: .consume
        case .tryImmediate: .tryImmediate
        case .suspend: .suspend
        case .respond: .respond
        case .abort: .abort
        }
    }

    var suspended: WorkKind? {
        guard case .suspend(let work) = self else { return nil }
        switch work {
        case .decide: return .decide
        case .headThenHandle: return .headThenHandle
        case .handle: return .handle
        case .decideThenHandle: return .decideThenHandle
        }
    }

    var response: HTTPResponse? {
        guard case .respond(let response, _) = self else { return nil }
        return response
    }

    var closes: Bool? {
        guard case .respond(_, let close) = self else { return nil }
        return close
    }

    var aborted: Lifecycle.Abort? {
        guard case .abort(let reason) = self else { return nil }
        return reason
    }
}

extension Result<String?, HTTPResponse> {
    /// The answer of a refused request, nil when admitted.
    var refusal: HTTPResponse? {
        guard case .failure(let response) = self else { return nil }
        return response
    }
}
