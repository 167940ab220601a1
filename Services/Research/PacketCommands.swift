import Contracts
import Foundation
import Messaging
import ResearchCore

/// The packet commands: a build starts or joins today's durable job and answers at once (200 with the stored packet,
/// else 202 with the job's state to poll); a read answers the newest packet (or its export), the job's state while
/// it runs, or 404 before any build.
struct PacketCommands: Sendable {
    let store: PacketStore
    let memos: MemoRenderer

    func build(_ command: PacketBuildCommand) async throws -> Reply {
        guard let owner = command.owner.key else { return .error(.deviceIdRequired) }
        let day = PacketRules.day(kind: command.kind, asOf: command.asOf, now: Date())
        guard let started = try await store.start(command, day: day, ownerKey: owner) else {
            return .error(.researchStoreUnavailable)
        }
        // A caller that already owns this build's generation is not charged again.
        let headers = [("X-Research-Turn", started.joined ? "new" : "replayed")]
        return answer(started.build, building: true, headers: headers)
    }

    func read(_ command: PacketReadCommand) async throws -> Reply {
        guard let build = try await store.latest(kind: command.kind, ticker: command.ticker) else {
            return .json(404, PacketRules.notFound(command.kind))
        }
        guard let format = command.format else { return answer(build, building: false, headers: []) }
        guard let packet = build.packet,
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(packet.utf8))
        else { return answer(build, building: false, headers: []) }
        let fileName = PacketRules.fileName(kind: command.kind, ticker: command.ticker, format: format)
        let text = PacketRules.text(object, kind: command.kind, ticker: command.ticker)
        switch format {
        case "json":
            return .json(
                200,
                ResearchDocument(
                    contentType: "application/json; charset=utf-8", fileName: fileName, bytes: Array(packet.utf8)))
        case "pdf":
            guard let pdf = await memos.pdf(title: "\(command.kind.title) — $\(command.ticker)", text: text) else {
                return .error(503, "\(command.kind.rawValue) export could not be rendered")
            }
            return .json(200, ResearchDocument(contentType: "application/pdf", fileName: fileName, bytes: pdf))
        default:
            return .json(
                200,
                ResearchDocument(
                    contentType: "text/plain; charset=utf-8", fileName: fileName, bytes: Array(text.utf8)))
        }
    }

    /// The stored packet verbatim (200), the job's state while it runs (202), or the failure (502). A read shows the
    /// last packet even while a forced rebuild runs; a build shows the rebuild's state.
    private func answer(_ build: PacketStore.Build, building: Bool, headers: [(String, String)]) -> Reply {
        let running = build.status == "queued" || build.status == "running"
        if let packet = build.packet, !(building && running) {
            return Reply(status: 200, body: Array(packet.utf8), headers: headers)
        }
        if build.status == "failed" {
            return .json(502, PacketRules.failed(build.kind, detail: build.error), headers: headers)
        }
        return .json(202, build.state, headers: headers)
    }
}
