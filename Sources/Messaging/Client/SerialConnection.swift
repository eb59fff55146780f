#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NIOCore

/// The socket of a ``SerialRPCClient`` and the bytes read from it that no frame has taken yet.
/// Non-blocking after the connect: every wait is a `poll` bounded by the request's deadline.
struct SerialConnection {
    /// Why a system call on the socket failed.
    enum Failure: Error {
        case system(errno: Int32)
        case timedOut
        case frame(FrameDecoderError)

        /// As ``RPCClient`` words it.
        var reason: String {
            switch self {
            case .system(let code): String(cString: strerror(code))
            case .timedOut: "connect timed out"
            case .frame(let error): error.description
            }
        }
    }

    private(set) var descriptor: Int32
    /// The id of the next request.
    var nextID: Int64 = 1
    /// Why the connection is closed, once it is.
    var closedReason: String?
    private var buffer = ByteBuffer()

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A connected socket: the connect waits at most `timeout` for the server to accept.
    static func open(_ path: String, timeout: Duration) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .system(errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        #if canImport(Glibc)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .system(errno: errno) }
        // A Unix socket's connect waits while the server's backlog is full, for SO_SNDTIMEO.
        var wait = timeval(seconds: timeout)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let code = errno
        guard connected == 0 else {
            closeDescriptor(descriptor)
            throw code == EAGAIN || code == EINPROGRESS || code == ETIMEDOUT ? .timedOut : .system(errno: code)
        }
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return descriptor
    }

    /// Writes all of `frame`.
    mutating func write(_ frame: ByteBuffer, until deadline: ContinuousClock.Instant?) throws(Failure) {
        var rest = frame
        while rest.readableBytes > 0 {
            #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            let socket = descriptor
            var code: Int32 = 0
            let sent = rest.withUnsafeReadableBytes {
                defer { code = errno }
                return send(socket, $0.baseAddress, $0.count, flags)
            }
            if sent >= 0 {
                rest.moveReaderIndex(forwardBy: sent)
            } else if code == EAGAIN || code == EWOULDBLOCK {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else if code != EINTR {
                throw .system(errno: code)
            }
        }
    }

    /// The next frame's payload; nil when the server closed the connection.
    mutating func readFrame(maxFrameBytes: Int, until deadline: ContinuousClock.Instant?) throws(Failure) -> ByteBuffer?
    {
        while true {
            if let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) {
                guard length > 0, Int(length) <= maxFrameBytes else {
                    throw .frame(FrameDecoderError(announcedLength: Int(length), maxFrameBytes: maxFrameBytes))
                }
                if buffer.readableBytes >= FrameDecoder.headerSize + Int(length) {
                    buffer.moveReaderIndex(forwardBy: FrameDecoder.headerSize)
                    return buffer.readSlice(length: Int(length))
                }
            }
            try wait(for: Int16(POLLIN), until: deadline)
            buffer.discardReadBytes()
            let socket = descriptor
            var (received, code) = (0, Int32(0))
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { space in
                received = recv(socket, space.baseAddress, space.count, 0)
                code = errno
                return max(received, 0)
            }
            if received == 0 { return nil }
            if received < 0, code != EAGAIN, code != EWOULDBLOCK, code != EINTR {
                // A reset is the server gone, as a close is.
                if code == ECONNRESET { return nil }
                throw .system(errno: code)
            }
        }
    }

    /// Closes the socket (once); `reason` is why later calls fail, unless one was given before.
    mutating func close(reason: String) {
        if descriptor >= 0 { Self.closeDescriptor(descriptor) }
        descriptor = -1
        if closedReason == nil { closedReason = reason }
    }

    /// Waits until the socket is ready for `events`, or throws at the deadline.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(Failure) {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let (seconds, attoseconds) = (deadline - .now).components
                guard seconds > 0 || attoseconds > 0 else { throw .timedOut }
                // Rounded up: a poll that ends before the deadline would be one more turn.
                milliseconds = Int32(
                    clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .system(errno: errno) }
        }
    }

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}

extension timeval {
    fileprivate init(seconds duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: .init(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
    }
}
