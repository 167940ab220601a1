import CCurl
import Foundation
import Runtime
import Synchronization

/// Runs one curl multi handle on a dedicated thread: `curl_multi_poll`/`perform`, with
/// `curl_multi_wakeup` to hand it new transfers or cancellations from any thread.
final class CurlDriver: @unchecked Sendable {
    private let multi: CurlMulti
    private let logger: Logger

    private struct Inbox {
        var adds: [Transfer] = []
        var cancels: [Transfer] = []
        var stopping = false
    }
    private let inbox = Mutex(Inbox())
    /// Driver thread only: transfers added to the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    init(multi: CurlMulti, logger: Logger) {
        self.multi = multi
        self.logger = logger
    }

    /// Starts the thread; it keeps the driver alive until `stop()` has been processed.
    func start(name: String) {
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    /// False when the driver is stopping (the transfer was not taken).
    func submit(_ transfer: Transfer) -> Bool {
        let taken = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.adds.append(transfer)
            return true
        }
        if taken { multi.wakeup() }
        return taken
    }

    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .releasing)
        inbox.withLock { $0.cancels.append(transfer) }
        multi.wakeup()
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        multi.wakeup()
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (adds, cancels, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.adds.removeAll()
                    inbox.cancels.removeAll()
                }
                return (inbox.adds, inbox.cancels, inbox.stopping)
            }
            for transfer in adds {
                if transfer.cancelled.load(ordering: .acquiring) {
                    transfer.finish(.failure(transfer.error(.cancelled, "cancelled")))
                } else if curl_multi_add_handle(multi.raw, transfer.easy.raw) != CURLM_OK {
                    transfer.finish(.failure(transfer.error(.other, "cannot add the transfer")))
                } else {
                    active[transfer.easy.raw] = transfer
                }
            }
            for transfer in cancels where active.removeValue(forKey: transfer.easy.raw) != nil {
                curl_multi_remove_handle(multi.raw, transfer.easy.raw)
                transfer.finish(.failure(transfer.error(.cancelled, "cancelled")))
            }
            if stopping {
                for transfer in active.values {
                    curl_multi_remove_handle(multi.raw, transfer.easy.raw)
                    transfer.finish(.failure(transfer.error(.other, "client shut down")))
                }
                active.removeAll()
                logger.debug("http client stopped")
                return
            }

            let performed = curl_multi_perform(multi.raw, &running)
            if performed != CURLM_OK {
                logger.error("curl_multi_perform failed", [LogKeys.curlCode: .int(Int(performed.rawValue))])
            }
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi.raw, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let outcome = transfer.outcome(for: mapvest_curl_msg_result(message))  // before remove: frees msg
                curl_multi_remove_handle(multi.raw, easy)
                transfer.finish(outcome)
            }
            var events: Int32 = 0
            _ = curl_multi_poll(multi.raw, nil, 0, 1000, &events)
        }
    }
}
