import Contracts
import Dispatch
import Messaging
import ResearchCore
import Synchronization

/// Renders a conversation's memo PDF on its own dispatch queue (cairo is blocking C work and never runs on the
/// cooperative pool); at most `maxWaiting` memos wait, beyond which the answer is a 503 at once.
final class MemoRenderer: Sendable {
    private let queue = DispatchQueue(label: "mapvest.research.memo-pdf", qos: .userInitiated)
    private let waiting = Atomic<Int>(0)
    private let maxWaiting: Int

    init(maxWaiting: Int = 16) { self.maxWaiting = max(1, maxWaiting) }

    /// The `200` reply with `thread`'s memo PDF (its messages loaded) as a `ResearchDocument`, or a 503 when busy or
    /// cairo failed.
    func reply(_ thread: AgentThreadSummary) async -> Reply {
        guard let pdf = await render(ResearchMemoLayout.blocks(thread)) else {
            return .error(503, "memo renderer is busy or failed; try again shortly")
        }
        return .json(
            200,
            ResearchDocument(
                contentType: "application/pdf", fileName: ResearchMemoLayout.fileName(thread.id), bytes: pdf))
    }

    /// `text` under `title` as a PDF (a packet export); nil when busy or cairo failed.
    func pdf(title: String, text: String) async -> [UInt8]? {
        await render(ResearchMemoLayout.document(title: title, text: text))
    }

    /// `blocks` drawn on the queue; nil when `maxWaiting` are waiting already or cairo failed.
    private func render(_ blocks: [ResearchMemoLayout.Block]) async -> [UInt8]? {
        guard waiting.add(1, ordering: .relaxed).newValue <= maxWaiting else {
            waiting.subtract(1, ordering: .relaxed)
            return nil
        }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                let bytes = Self.draw(blocks)
                self.waiting.subtract(1, ordering: .relaxed)
                continuation.resume(returning: bytes)
            }
        }
    }

    /// Draws synchronously on the calling thread: for the queue above and tests only.
    static func draw(_ blocks: [ResearchMemoLayout.Block]) -> [UInt8]? {
        guard let pdf = MemoPDF.make() else { return nil }
        for block in blocks {
            pdf.paragraph(block.text, size: block.size, bold: block.bold, gray: block.gray, after: block.after)
        }
        return pdf.finish()
    }
}
