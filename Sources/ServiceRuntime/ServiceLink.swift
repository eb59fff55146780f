import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceLifecycle
import Synchronization

/// A persistent, multiplexed connection to one rnm process: the Gateway's to each service,
/// the HTTPGateway's to the Gateway.
///
/// It connects lazily, on the first request. While the service is away, requests fail at once
/// with -32003 and a background loop reconnects with capped exponential backoff and jitter, so
/// a restarted service is served again within a second of being up.
public final class ServiceLink: Service, Sendable {
    /// Where the link is. Every transition happens under one lock.
    private enum State {
        /// Not connected yet: the next request connects.
        case idle
        /// The first connection attempt, which every caller waiting for it shares.
        case connecting(Task<RPCClient, any Error>)
        /// Connected.
        case connected(RPCClient)
        /// The service is away: requests fail at once while the background loop reconnects.
        case reconnecting(lastError: String)
        /// Shut down.
        case stopped
    }

    public let service: ServiceName
    public let socketPath: String
    private let maxFrameBytes: Int
    private let logger: Logger
    /// Run on each new connection before any request uses it (the HTTP front's `gateway.hello`).
    public typealias Greeting = @Sendable (RPCClient) async throws -> Void
    private let greeting: Greeting?
    private let state = Mutex(State.idle)
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// - Parameter greeting: run on each new connection before any request uses it; when it
    ///   throws, the connection counts as failed (closed, then retried as any other).
    public init(
        service: ServiceName, socketPath: String, maxFrameBytes: Int, logger: Logger, greeting: Greeting? = nil
    ) {
        self.greeting = greeting
        self.service = service
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
        var logger = logger
        logger[metadataKey: "service"] = "\(service)"
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The connection, made now if there is none yet.
    /// - Throws: -32003 naming the service, at once, when it cannot be reached.
    public func client() async throws -> RPCClient {
        enum Next { case use(RPCClient), wait(Task<RPCClient, any Error>), fail(String) }
        let next = state.withLock { state -> Next in
            switch state {
            case .connected(let client) where client.isActive:
                return .use(client)
            case .connected, .idle:
                // A closed connection not yet noticed, or never connected: connect now.
                let attempt = Task { try await self.connect() }
                state = .connecting(attempt)
                return .wait(attempt)
            case .connecting(let attempt):
                return .wait(attempt)
            case .reconnecting(let lastError):
                return .fail(lastError)
            case .stopped:
                return .fail("the Gateway is shutting down")
            }
        }
        switch next {
        case .use(let client): return client
        case .wait(let attempt): return try await attempt.value
        case .fail(let reason): throw unavailable(reason)
        }
    }

    /// The connection when it is up, without waiting; nil otherwise (``client()`` connects).
    public var connectedClient: RPCClient? {
        state.withLock { state in
            if case .connected(let client) = state, client.isActive { return client }
            return nil
        }
    }

    private func unavailable(_ reason: String) -> RPCError {
        RPCError(.serviceUnavailable, "the \(service) service is unavailable: \(reason)", service: service)
    }

    /// One connection attempt: connected on success; on failure, reconnecting in the background.
    private func connect() async throws -> RPCClient {
        do {
            let client = try await RPCClient.connect(
                socketPath: socketPath, service: service, maxFrameBytes: maxFrameBytes)
            do {
                try await greeting?(client)
            } catch {
                await client.close()
                throw error
            }
            let kept = state.withLock { state -> Bool in
                if case .stopped = state { return false }
                state = .connected(client)
                return true
            }
            guard kept else {
                await client.close()
                throw unavailable("the Gateway is shutting down")
            }
            logger.info("connected", metadata: ["socket": "\(socketPath)"])
            client.closeFuture.whenComplete { [self] _ in dropped(client) }
            return client
        } catch {
            let reason = (error as? RPCError)?.message ?? "\(error)"
            lost(reason: reason)
            throw unavailable(reason)
        }
    }

    private func dropped(_ client: RPCClient) {
        let ours = state.withLock { state -> Bool in
            if case .connected(let current) = state { return current === client }
            return false
        }
        guard ours else { return }
        logger.warning("connection lost; reconnecting", metadata: ["socket": "\(socketPath)"])
        lost(reason: "connection to \(service) at \(socketPath) closed")
    }

    /// Moves to reconnecting (unless stopped) and wakes the background loop.
    private func lost(reason: String) {
        let wakeLoop = state.withLock { state -> Bool in
            switch state {
            case .stopped: return false
            case .reconnecting:
                state = .reconnecting(lastError: reason)
                return false
            default:
                state = .reconnecting(lastError: reason)
                return true
            }
        }
        if wakeLoop { wake.yield() }
    }

    private var isReconnecting: Bool {
        state.withLock { if case .reconnecting = $0 { true } else { false } }
    }

    /// Reconnects in the background whenever the connection is lost.
    public func run() async throws {
        await withGracefulShutdownHandler {
            for await _ in wakeups.cancelOnGracefulShutdown() {
                var backoff = Backoff()
                while !Task.isCancelled, isReconnecting {
                    try? await Task.sleep(for: backoff.next())
                    _ = try? await connect()
                }
            }
        } onGracefulShutdown: {
            // Stop reconnecting; a live connection stays until the loop has ended.
            self.state.withLock { state in
                if case .reconnecting = state { state = .stopped }
            }
            self.wake.finish()
        }
        let client = state.withLock { state -> RPCClient? in
            defer { state = .stopped }
            if case .connected(let client) = state { return client }
            return nil
        }
        await client?.close()
    }
}
