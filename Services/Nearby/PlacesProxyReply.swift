import Contracts
import Foundation
import Messaging
import NearbyAdapters
import NearbyCore
import Runtime

extension PlacesProxyAnswerer {
    /// Decodes a `nearby.places-proxy.v1` command and answers it: 200 with Google's shape, or 502 when every places
    /// source failed. A body that does not decode is a `CommandDecodingError` (dead-lettered by the runner).
    func reply(to command: IncomingCommand, logger: Logger) async throws -> Reply {
        let request: PlacesProxyCommand
        do {
            request = try JSONDecoder().decode(PlacesProxyCommand.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): \(error)")
        }
        switch await answer(request, deadline: command.deadline) {
        case .success(let response):
            return .json(200, response, headers: [("Cache-Control", "private, max-age=60")])
        case .failure(let failure):
            logger.warning("places cascade exhausted (proxy)")
            return .error(502, failure.message)
        }
    }
}
