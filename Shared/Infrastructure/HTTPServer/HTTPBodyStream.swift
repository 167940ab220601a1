import CMicroHTTPD
import Synchronization

/// A response body written while it is being sent (chunked), e.g. server-sent events. The handler returns an
/// `HTTPResponse` carrying the stream at once and writes to it from a task; `finish()` ends the response.
///
/// libmicrohttpd pulls the body from a content-reader callback on its polling thread. With nothing buffered the
/// callback suspends the connection (no busy polling, no thread held) and the next `write` or `finish` resumes it.
/// A suspended connection cannot be closed by MHD, so the connection pointer is valid whenever it is resumed here.
public final class HTTPBodyStream: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var finished = false
        /// Set once the response is gone (the client left or the server stopped): writes are dropped.
        var closed = false
        /// The MHD connection's address (a plain integer, so the state stays Sendable).
        var connection: Int?
        /// The connection, while the reader suspended it waiting for bytes.
        var waiting = false
        var onClose: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    public init() {}

    /// Appends bytes; false once the response is gone (stop producing).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let (accepted, resume) = state.withLock { s -> (Bool, OpaquePointer?) in
            guard !s.closed, !s.finished else { return (false, nil) }
            s.buffer += bytes
            return (true, Self.takeWaiting(&s))
        }
        if let resume { MHD_resume_connection(resume) }
        return accepted
    }

    /// Appends UTF-8 text.
    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Ends the body after what is buffered.
    public func finish() {
        let resume = state.withLock { s -> OpaquePointer? in
            s.finished = true
            return Self.takeWaiting(&s)
        }
        if let resume { MHD_resume_connection(resume) }
    }

    /// True once the response is gone.
    public var isClosed: Bool { state.withLock { $0.closed } }

    private static func takeWaiting(_ s: inout State) -> OpaquePointer? {
        guard s.waiting, let connection = s.connection else { return nil }
        s.waiting = false
        return OpaquePointer(bitPattern: connection)
    }

    // MARK: Server side

    func attach(_ connection: OpaquePointer, onClose: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.connection = Int(bitPattern: connection)
            s.onClose = onClose
        }
    }

    /// The reader: copies up to `max` bytes, ends the stream, or suspends the connection until there are bytes.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { s -> Int in
            if !s.buffer.isEmpty {
                let n = Swift.min(max, s.buffer.count)
                s.buffer.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: n)
                }
                s.buffer.removeFirst(n)
                return n
            }
            if s.finished || s.closed { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
            guard let connection = s.connection.flatMap(OpaquePointer.init(bitPattern:)) else { return -1 }
            s.waiting = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    /// The response was destroyed: nothing more is sent.
    func close() {
        let onClose = state.withLock { s -> (@Sendable () -> Void)? in
            s.closed = true
            s.waiting = false
            s.connection = nil
            s.buffer = []
            defer { s.onClose = nil }
            return s.onClose
        }
        onClose?()
    }
}

/// MHD's content reader: `cls` is the retained stream.
let streamReaderCallback: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    return Unmanaged<HTTPBodyStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// Releases the stream's retain when MHD destroys the response.
let streamFreeCallback: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<HTTPBodyStream>.fromOpaque(cls)
    stream.takeUnretainedValue().close()
    stream.release()
}
