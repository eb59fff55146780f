import Messaging
import ServiceLifecycle

/// An ``RPCServer`` as a ServiceLifecycle service: a graceful shutdown (SIGTERM) drains it.
public struct ServerService: Service {
    /// The server it runs.
    public let server: RPCServer

    public init(_ server: RPCServer) {
        self.server = server
    }

    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: {
            server.shutDownGracefully()
        }
    }
}
