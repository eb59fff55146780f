import Foundation
import Messaging
import RnmAPI
import Synchronization

/// The version of a service's data that `<prefix>.changes` answers (``DataVersion``): a token
/// drawn at start and a count of the commits that changed the database since. A client keeping
/// copies of answers (the HTTP front's micro-cache) keeps them while it reads the same version.
public final class DataChanges: Sendable {
    /// New at each start: a restarted service (whose database may have been replaced) is never
    /// taken for the one before.
    private let start = UUID().uuidString.prefix(8).lowercased()
    private let count = Atomic<UInt64>(0)

    public init() {}

    /// One more change (``DataChangeObserver``'s action).
    public func record() {
        count.add(1, ordering: .relaxed)
    }

    /// `<start>.<count>`, with the max age its answers are fresh for.
    public func version(maxAge: Double) -> DataVersion {
        DataVersion(version: "\(start).\(count.load(ordering: .relaxed))", maxAge: maxAge)
    }
}

extension RPCRouter {
    /// Registers `method` (`<prefix>.changes`): the version of the data whose changes `changes`
    /// counts (``CachingServiceConfiguration/makeReplyCache(invalidatedBy:counting:)``), and
    /// `maxAge`, the service's max age in seconds.
    public mutating func registerChanges(
        _ method: RPCMethod<NoParams, DataVersion>, _ changes: DataChanges, maxAge: Double
    ) {
        register(method) { _, _ in changes.version(maxAge: maxAge) }
    }
}
