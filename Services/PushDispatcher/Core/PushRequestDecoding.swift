import Contracts
import FoundationEssentials

/// Why a message is not a push request (bounded values, used as headers, metrics and log fields).
package enum PushRequestRejection: String, Error, Sendable, CaseIterable {
    case wrongCommand = "unexpected mv-command header"
    case undecodable = "undecodable push request"
    case invalid = "push request without id or recipients"
}

extension PushRequest {
    /// The request in a consumed message: any `mv-command` header (`command`) must be `push.request.v1`; none is
    /// fine. A body that is not a `PushRequest`, or one without id or recipients, is rejected.
    package static func decode(command: String?, body: [UInt8]) -> Result<PushRequest, PushRequestRejection> {
        if let command, command != PushRequest.name { return .failure(.wrongCommand) }
        guard let request = try? JSONDecoder().decode(PushRequest.self, from: Data(body)) else {
            return .failure(.undecodable)
        }
        guard !request.id.isEmpty, !request.userIds.isEmpty else { return .failure(.invalid) }
        return .success(request)
    }
}
