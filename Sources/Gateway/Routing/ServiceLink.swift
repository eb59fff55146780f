import Logging
import Messaging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The Gateway's persistent, multiplexed connection to one service.
///
/// It connects lazily, on the first request. While the service is away, requests fail at once
/// with -32003 and a background loop reconnects with capped exponential backoff and jitter, so
/// a restarted service is served again within a second of being up.
final class ServiceLink: Service, Sendable {
    let service: ServiceName
    let socketPath: String
    private let maxFrameBytes: Int
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    private struct State {
        var client: RPCClient?
        /// The connection attempt under way, which every caller shares.
        var connecting: Task<RPCClient, any Error>?
        var lastError: String?
        var reconnecting = false
        var stopping = false
    }

    init(service: ServiceName, socketPath: String, maxFrameBytes: Int, logger: Logger) {
        self.service = service
        self.socketPath = socketPath
        self.maxFrameBytes = maxFrameBytes
        var logger = logger
        logger[metadataKey: "service"] = "\(service.rawValue)"
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The connection, made now if there is none and no reconnection is under way.
    /// - Throws: -32003 naming the service, at once, when it cannot be reached.
    func client() async throws -> RPCClient {
        let (client, reconnecting, lastError) = state.withLock { ($0.client, $0.reconnecting, $0.lastError) }
        if let client, client.isActive { return client }
        if reconnecting { throw unavailable(lastError) }
        return try await connect()
    }

    /// Connects, or joins the attempt already under way: a burst of first requests makes one
    /// connection, not one each.
    private func connect() async throws -> RPCClient {
        let attempt = state.withLock { state -> Task<RPCClient, any Error> in
            if let attempt = state.connecting { return attempt }
            let attempt = Task { try await self.makeConnection() }
            state.connecting = attempt
            return attempt
        }
        defer { state.withLock { if $0.connecting == attempt { $0.connecting = nil } } }
        return try await attempt.value
    }

    private func unavailable(_ reason: String?) -> RPCError {
        RPCError(.serviceUnavailable, "the \(service.rawValue) service is unavailable: \(reason ?? "not connected")", service: service.rawValue)
    }

    private func makeConnection() async throws -> RPCClient {
        do {
            let client = try await RPCClient.connect(socketPath: socketPath, service: service.rawValue, maxFrameBytes: maxFrameBytes)
            state.withLock { state in
                state.client = client
                state.lastError = nil
                state.reconnecting = false
            }
            logger.info("connected", metadata: ["socket": "\(socketPath)"])
            client.closeFuture.whenComplete { [self] _ in dropped(client) }
            return client
        } catch {
            let reason = (error as? RPCError)?.message ?? "\(error)"
            let start = state.withLock { state -> Bool in
                state.lastError = reason
                defer { state.reconnecting = true }
                return !state.reconnecting
            }
            if start { wake.yield() }
            throw unavailable(reason)
        }
    }

    private func dropped(_ client: RPCClient) {
        let start = state.withLock { state -> Bool in
            guard state.client === client else { return false }
            state.client = nil
            state.lastError = "connection to \(service.rawValue) at \(socketPath) closed"
            defer { state.reconnecting = true }
            return !state.reconnecting
        }
        if start {
            logger.warning("connection lost; reconnecting", metadata: ["socket": "\(socketPath)"])
            wake.yield()
        }
    }

    /// Reconnects in the background whenever the connection is lost.
    func run() async throws {
        await withGracefulShutdownHandler {
            for await _ in wakeups.cancelOnGracefulShutdown() {
                var backoff = Backoff()
                while !Task.isCancelled, state.withLock({ $0.reconnecting && !$0.stopping }) {
                    try? await Task.sleep(for: backoff.next())
                    _ = try? await connect()
                }
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stopping = true }
            self.wake.finish()
        }
        let client = state.withLock { $0.client }
        await client?.close()
    }
}
