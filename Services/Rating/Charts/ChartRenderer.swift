import Contracts
import Dispatch
import Synchronization

/// Draws charts on dedicated dispatch queues (cairo is blocking, CPU-bound C work and never runs on the cooperative
/// pool). Each job gets its own canvas; `workers` queues run at once and at most `maxWaiting` charts wait, beyond
/// which `render` fails at once with `.busy`.
public final class ChartRenderer: Sendable {
    private let queues: [DispatchQueue]
    private let next = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let maxWaiting: Int

    public init(workers: Int = 2, maxWaiting: Int = 64) {
        queues = (0..<max(1, workers)).map { DispatchQueue(label: "mapvest.charts.render-\($0)", qos: .userInitiated) }
        self.maxWaiting = max(1, maxWaiting)
    }

    /// The chart as a PNG, drawn off the cooperative pool.
    public func render(_ request: ChartRequest) async throws(ChartError) -> RenderedChart {
        try await run { () throws(ChartError) in try ChartRenderer.draw(request) }
    }

    /// A widget's map snapshot as a PNG, drawn off the cooperative pool on the same queues.
    public func renderSnapshot(_ request: MapSnapshotRequest) async throws(ChartError) -> [UInt8] {
        try await run { () throws(ChartError) in try MapSnapshotDrawing.draw(request) }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws(ChartError) -> T) async throws(ChartError) -> T
    {
        guard waiting.add(1, ordering: .relaxed).newValue <= maxWaiting else {
            waiting.subtract(1, ordering: .relaxed)
            throw ChartError(.busy, "too many charts waiting to render")
        }
        let index = next.add(1, ordering: .relaxed).newValue & Int.max
        let queue = queues[index % queues.count]
        let result: Result<T, ChartError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                let outcome = Result { () throws(ChartError) in try work() }
                self.waiting.subtract(1, ordering: .relaxed)
                continuation.resume(returning: outcome)
            }
        }
        return try result.get()
    }

    /// Draws synchronously on the calling thread: for the queues above, benchmarks and tests — never from async code
    /// on the cooperative pool (use `render`).
    public static func draw(_ request: ChartRequest) throws(ChartError) -> RenderedChart {
        let bars = request.bars.filter { $0.close > 0 && $0.close.isFinite }
        guard bars.count >= 2 else { throw ChartError(.insufficientData, "not enough price history to draw a chart") }
        guard
            let canvas = CairoCanvas.make(
                pixelWidth: request.pixelWidth, pixelHeight: request.pixelHeight, scale: request.scale)
        else { throw ChartError(.renderFailed, "chart canvas could not be created") }
        var sized = request
        sized.bars = bars
        let drawn = try ChartDrawing(canvas: canvas, request: sized).draw()
        guard let png = canvas.png() else { throw ChartError(.renderFailed, "chart could not be encoded") }
        var facts = drawn.facts
        facts["points"] = Double(bars.count)
        return RenderedChart(
            png: png, width: request.pixelWidth, height: request.pixelHeight, levels: drawn.levels, facts: facts)
    }
}
