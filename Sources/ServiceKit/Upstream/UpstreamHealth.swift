import Foundation
import RnmAPI
import Synchronization

/// What a service last saw of its upstream, for `<prefix>.health`.
public final class UpstreamHealth: Sendable {
    /// A copy of the state.
    public struct Snapshot: Sendable {
        public var lastSuccessAt: Date?
        public var lastError: String?
        /// True when the last call failed.
        public var failing: Bool
        /// When the current run of failures began.
        public var failingSince: Date?
    }

    private let state = Mutex(Snapshot(lastSuccessAt: nil, lastError: nil, failing: false, failingSince: nil))

    public init() {}

    public func recordSuccess(at date: Date) {
        state.withLock {
            $0.lastSuccessAt = date
            $0.lastError = nil
            $0.failing = false
            $0.failingSince = nil
        }
    }

    public func recordFailure(_ error: UpstreamError) {
        state.withLock {
            $0.lastError = error.description
            if !$0.failing { $0.failingSince = Date() }
            $0.failing = true
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Runs an upstream call, recording its outcome.
    public func recording<T>(_ body: () async throws(UpstreamError) -> T) async throws(UpstreamError) -> T {
        do {
            let value = try await body()
            recordSuccess(at: Date())
            return value
        } catch {
            recordFailure(error)
            throw error
        }
    }

    /// A caching service's health answer: `degraded` while its upstream is failing.
    public func report(service: ServiceName, upstreamURL: String, started: Date, cache: [String: Int],
                       mirror: ServiceHealth.MirrorState? = nil) -> ServiceHealth {
        let snapshot = self.snapshot
        return ServiceHealth(service: service.rawValue, status: snapshot.failing ? "degraded" : "ok", version: rnmVersion,
                             uptimeSeconds: Date().timeIntervalSince(started), cache: cache,
                             upstream: .init(url: upstreamURL, lastSuccessAt: snapshot.lastSuccessAt?.rfc3339,
                                             lastError: snapshot.lastError, failingSince: snapshot.failingSince?.rfc3339),
                             mirror: mirror)
    }
}
