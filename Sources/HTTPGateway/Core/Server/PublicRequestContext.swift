import Hummingbird
import NIOCore

/// The context of every public request: Hummingbird's basic context and the client's address,
/// which the per-client limits count by (``GraphQLAdmission``, as ``ConnectionGate`` counts
/// connections).
struct PublicRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address as the limits count it: its IP, without the port.
    var client: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}
