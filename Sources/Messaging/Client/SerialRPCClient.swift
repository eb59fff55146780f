#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NIOCore
import Synchronization
import Telemetry

/// A client connection for a program that makes a call or two and exits (rnmctl): each request
/// is written and its reply read with blocking system calls on the calling thread, one request
/// at a time (calls made at once take turns).
///
/// ``RPCClient`` does the same on an event loop, for processes that keep many requests in
/// flight: for one call its loop's threads, its channel pipeline and the run-time look-ups of
/// its handlers' types were a sixth of rnmctl's start (BENCHMARKS.md, session 17).
/// The wire and the failures are ``RPCClient``'s: the task's trace id and client in each
/// request, progress notifications restarting the deadline, -32003 when the connection is or
/// goes down, -32004 past the deadline (and `rpc.cancel` sent). A call is not interrupted by
/// its task's cancellation: it ends at its reply or its deadline.
public final class SerialRPCClient: RPCCaller {
    /// The service on the other end, named in errors.
    public let service: String
    /// The socket path.
    public let socketPath: String
    /// The largest frame payload this client sends or accepts.
    public let maxFrameBytes: Int
    private let connection: Mutex<SerialConnection>

    private init(descriptor: Int32, service: String, socketPath: String, maxFrameBytes: Int) {
        self.connection = Mutex(SerialConnection(descriptor: descriptor))
        self.service = service
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
    }

    deinit {
        close()
    }

    /// Connects to the socket at `path`, waiting at most `timeout` for the server to accept.
    /// - Throws: ``RPCError`` -32003 naming the service and the path when nothing answers there.
    public static func connect(
        socketPath: String, service: String, maxFrameBytes: Int = WireLimits.maxFrameBytes,
        timeout: Duration = .seconds(2)
    ) throws -> SerialRPCClient {
        do {
            let descriptor = try SerialConnection.open(socketPath, timeout: timeout)
            return SerialRPCClient(
                descriptor: descriptor, service: service, socketPath: socketPath, maxFrameBytes: maxFrameBytes)
        } catch {
            throw RPCError.cannotConnect(to: service, at: socketPath, reason: error.reason)
        }
    }

    /// Sends request `method` and waits for its reply; see ``RPCCaller/call(method:params:timeout:onProgress:)``.
    public func call(
        method: String, params: ByteBuffer?, timeout: Duration?, onProgress: RPCClient.ProgressHandler? = nil
    ) async throws -> Envelope {
        let trace = RequestTrace.current
        let client = RequestClient.current
        return try connection.withLock { connection in
            guard connection.closedReason == nil else { throw failure(connection) }
            let id = connection.nextID
            connection.nextID += 1
            let frame = Frames.request(id: id, method: method, params: params, trace: trace, client: client)
            try FrameTooLargeError.check(frame, maxFrameBytes: maxFrameBytes, what: "the request to \(service)")
            var deadline = timeout.map { ContinuousClock.now + $0 }
            do {
                try connection.write(frame, until: deadline)
            } catch let error as SerialConnection.Failure {
                if case .timedOut = error { throw timedOut(timeout) }
                connection.closedReason = "cannot send to \(service): \(error.reason)"
                throw failure(connection)
            }
            while true {
                let envelope: Envelope
                do {
                    guard let payload = try connection.readFrame(maxFrameBytes: maxFrameBytes, until: deadline) else {
                        connection.closedReason = "connection to \(service) at \(socketPath) closed"
                        throw failure(connection)
                    }
                    guard let parsed = Envelope.canonicalResponse(payload) ?? (try? Envelope(parsing: payload)) else {
                        continue
                    }
                    envelope = parsed
                } catch let error as SerialConnection.Failure {
                    guard case .timedOut = error else {
                        connection.closedReason = "protocol error from \(service): \(error.reason)"
                        throw failure(connection)
                    }
                    // As RPCClient: the server is told to stop work nobody waits for.
                    try? connection.write(Frames.cancel(id: id), until: ContinuousClock.now + .milliseconds(100))
                    throw timedOut(timeout)
                }
                switch envelope.kind {
                case .response where envelope.integerID == id:
                    return envelope
                case .notification:
                    guard let range = envelope.progressRequestIDRange,
                        Envelope.integer(in: envelope.slice(range)) == id
                    else { continue }
                    onProgress?(envelope)
                    deadline = timeout.map { ContinuousClock.now + $0 }
                case .response, .request:
                    continue
                }
            }
        }
    }

    /// Closes the connection; later calls fail with -32003.
    public func close() {
        connection.withLock { connection in
            connection.close(reason: "connection to \(service) closed by this client")
        }
    }

    private func failure(_ connection: SerialConnection) -> RPCError {
        RPCError(.serviceUnavailable, connection.closedReason ?? "connection to \(service) closed", service: service)
    }

    private func timedOut(_ timeout: Duration?) -> RPCError {
        let (seconds, attoseconds) = (timeout ?? .zero).components
        return RPCError.timedOut(service, milliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
