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

    /// The `200` reply with `thread`'s memo PDF as a `ResearchDocument` (its messages loaded), or a 503 when busy or cairo failed.
    func reply(_ thread: AgentThreadSummary, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard waiting.add(1, ordering: .relaxed).newValue <= maxWaiting else {
            waiting.subtract(1, ordering: .relaxed)
            return .error(503, "memo renderer is busy; try again shortly")
        }
        let pages = ResearchMemoLayout.blocks(thread)
        let pdf: [UInt8]? = await withCheckedContinuation { continuation in
            queue.async { [self] in
                let bytes = Self.draw(pages)
                self.waiting.subtract(1, ordering: .relaxed)
                continuation.resume(returning: bytes)
            }
        }
        guard let pdf else { return .error(503, "memo could not be rendered") }
        return .json(
            200,
            ResearchDocument(
                contentType: "application/pdf", fileName: ResearchMemoLayout.fileName(thread.id), bytes: pdf))
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
