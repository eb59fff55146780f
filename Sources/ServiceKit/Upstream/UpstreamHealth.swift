import Foundation
import Synchronization

/// What a service last saw of its upstream, for `<prefix>.health`.
public final class UpstreamHealth: Sendable {
    /// A copy of the state.
    public struct Snapshot: Sendable {
        public var lastSuccessAt: Date?
        public var lastError: String?
        /// True when the last call failed.
        public var failing: Bool
    }

    private let state = Mutex(Snapshot(lastSuccessAt: nil, lastError: nil, failing: false))

    public init() {}

    public func recordSuccess(at date: Date) {
        state.withLock {
            $0.lastSuccessAt = date
            $0.lastError = nil
            $0.failing = false
        }
    }

    public func recordFailure(_ error: UpstreamError) {
        state.withLock {
            $0.lastError = error.description
            $0.failing = true
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
}
