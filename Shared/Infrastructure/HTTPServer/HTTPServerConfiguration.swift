/// How an `HTTPServer` listens and bounds its connections.
public struct HTTPServerConfiguration: Sendable {
    /// A literal IPv4 or IPv6 address (or `localhost`); `::` listens on IPv6 and IPv4. Default `0.0.0.0`.
    public var host: String
    /// 0 picks an ephemeral port; `HTTPServer.port` tells which after `start()`.
    public var port: Int
    /// libmicrohttpd polling threads (`MHD_OPTION_THREAD_POOL_SIZE`). Default 2.
    public var threads: Int
    /// Maximum concurrent connections; more are refused at accept. Default 4096.
    var connectionLimit: Int
    /// Idle time after which a connection is closed (whole seconds, at least 1). Suspended connections never
    /// time out. Default 30 s.
    public var connectionTimeout: Duration
    /// Total time a request head may take to arrive, however it trickles in (`HeadDeadline`). Default 10 s.
    public var headTimeout: Duration
    /// Concurrent connections one client address may hold (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); more are refused
    /// at accept. 0 means no cap. Behind a proxy every client shares the proxy's address. Default 0.
    public var perClientConnectionLimit: Int
    /// Used in logs.
    public var name: String
    /// How long `shutdown()` waits for in-flight requests before answering the rest 503. Default 10 s.
    public var shutdownGracePeriod: Duration
    /// After a chunked upload passes its limit, up to this many more bytes are read and dropped so the client
    /// can read the `tooLarge` answer; past it the connection is closed without an answer. Default 16 MiB.
    var oversizeDiscardLimit: Int
    /// Per-connection memory for the request head, the read buffer and the response head
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a head that does not fit is refused 414/431. Bodies are copied out of
    /// it as they arrive, so it does not bound them. libmicrohttpd zeroes all of it after every request of a kept-alive
    /// connection, so each KiB costs instructions per request. Default 16 KiB (decision 0058).
    var connectionMemoryLimit: Int
    /// A body with a declared `Content-Length` of at most this many bytes (and no `Expect: 100-continue`) is read
    /// before `HTTPHandler.head(_:)` runs, so that `head(_:)` and `handle(_:)` run in one task: one suspend/resume
    /// of the connection instead of two. Larger, chunked and `100-continue` bodies are decided before they are
    /// read. 0 turns this off. Default 16 KiB (the JSON routes' bodies are far smaller).
    var smallBodyLimit: Int

    public init(
        host: String = "0.0.0.0", port: Int = 0, threads: Int = 2, connectionLimit: Int = 4096,
        connectionTimeout: Duration = .seconds(30), headTimeout: Duration = .seconds(10),
        perClientConnectionLimit: Int = 0, name: String = "http",
        shutdownGracePeriod: Duration = .seconds(10), oversizeDiscardLimit: Int = 16 << 20,
        connectionMemoryLimit: Int = 16 << 10, smallBodyLimit: Int = 16 << 10
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout
        self.headTimeout = headTimeout
        self.perClientConnectionLimit = perClientConnectionLimit
        self.name = name
        self.shutdownGracePeriod = shutdownGracePeriod
        self.oversizeDiscardLimit = oversizeDiscardLimit
        self.connectionMemoryLimit = connectionMemoryLimit
        self.smallBodyLimit = smallBodyLimit
    }
}

/// The server could not start (bad address, port in use, libmicrohttpd refused the options).
public struct HTTPServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "HTTP server: \(message)" }
}
