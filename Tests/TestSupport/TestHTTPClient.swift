import HTTPClient
import Runtime

/// The one outbound HTTP client every test shares, logging quietly. Tests only: if libcurl cannot
/// make a multi handle the test process stops here with the reason (services build theirs in `ServiceMain`,
/// where that is a startup error instead).
public let testHTTPClient: HTTPClient = {
    do {
        return try HTTPClient.make(logger: Logger(label: "test-http-client", level: .error))
    } catch {
        fatalError("testHTTPClient: \(error)")
    }
}()
