import Foundation
import HTTPServer

/// The client's address: the socket peer, or with `TRUSTED_PROXY_HOPS = N` the Nth address from the right of
/// `X-Forwarded-For` (the entries our own proxies appended). The leftmost entry is client-controlled and never trusted.
struct ClientAddress: Sendable {
    let trustedHops: Int

    func resolve(_ head: HTTPRequestHead) -> String {
        guard trustedHops > 0, let forwarded = head.headers["X-Forwarded-For"] else { return head.remoteAddress }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard hops.count >= trustedHops else { return hops.first ?? head.remoteAddress }
        return hops[hops.count - trustedHops]
    }
}
