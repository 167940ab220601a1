import Runtime
import Tracing

/// An HTTP client on one libcurl multi handle driven by a dedicated thread: many concurrent requests,
/// connection reuse per host (HTTP/1.1; HTTP/2 over TLS when the server offers it), TLS peers verified,
/// `http`/`https` only, never a blocked cooperative thread. Task cancellation removes the transfer promptly.
public final class HTTPClient: Sendable {
    private let driver: CurlDriver
    private let logger: Logger

    private init(driver: CurlDriver, logger: Logger) {
        self.driver = driver
        self.logger = logger
    }

    /// A client with its own thread and connection pool (at most `maxConnectionsPerHost` per host; more wait).
    public static func make(logger: Logger, maxConnectionsPerHost: Int = 32) throws(HTTPClientError) -> HTTPClient {
        guard let multi = CurlMulti.make(maxConnectionsPerHost: maxConnectionsPerHost) else {
            throw HTTPClientError(kind: .other, method: "-", url: "", detail: "cannot create a curl multi handle")
        }
        let driver = CurlDriver(multi: multi, logger: logger)
        driver.start(name: "http-client")
        return HTTPClient(driver: driver, logger: logger)
    }

    /// Sends `request` and returns the response, whatever its status.
    /// Inside a traced task the call is a client span and the request carries `traceparent` (`HTTPClientTracing`).
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        guard Tracing.current != nil else { return try await send(request) }
        return try await HTTPClientTracing.traced(request) { request throws(HTTPClientError) in try await send(request)
        }
    }

    private func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let transfer: Transfer
        switch Transfer.make(request) {
        case .success(let made): transfer = made
        case .failure(let error): throw error
        }
        let driver = self.driver
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Transfer.Outcome, Never>) in
                transfer.continuation = continuation
                if !driver.submit(transfer) {
                    transfer.continuation = nil
                    continuation.resume(returning: .failure(transfer.error(.other, "client shut down")))
                }
            }
        } onCancel: {
            driver.cancel(transfer)
        }
        return try outcome.get()
    }

    /// Fails in-flight requests and stops the thread; later requests fail at once (kind `.other`).
    public func shutdown() { driver.stop() }

    deinit { driver.stop() }
}
