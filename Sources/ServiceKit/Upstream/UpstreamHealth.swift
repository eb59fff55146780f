import Foundation
import Logging
import RnmAPI
import ServiceRuntime
import Synchronization

/// What a service knows of its upstream, and the small state machine that keeps a failing one
/// from being asked again by every request (docs/PROTOCOL.md §5, "When the upstream fails").
///
/// - ok: requests go out.
/// - failing (after a failure that says the upstream is unreachable or unwell,
///   ``UpstreamError/tripsCircuit``): requests are refused at once with
///   ``UpstreamError/failing(since:reason:nextProbe:)``, so the cache answers without waiting;
///   one probe at a time goes out in the background, with capped exponential backoff and
///   jitter; its first success, or any request's, ends the state.
/// - rate-limited (a 429 or 503 with `Retry-After`): nothing goes out until then, forced or not;
///   then a probe.
///
/// A forced request (a refresh or a sync: a user asking "try now") goes out while failing.
public final class UpstreamHealth: Sendable {
    /// How long to wait before asking again.
    public struct Retry: Sendable {
        /// The first probe's delay; each next one doubles it, up to `maxDelay` (with jitter).
        public var firstDelay: Duration
        /// The longest wait between probes (`RNM_UPSTREAM_RETRY_MAX_MS`).
        public var maxDelay: Duration
        /// The longest `Retry-After` obeyed (`RNM_UPSTREAM_RETRY_AFTER_MAX_MS`).
        public var maxRetryAfter: Duration

        public init(
            firstDelay: Duration = .milliseconds(250),
            maxDelay: Duration = .milliseconds(Defaults.upstreamRetryMaxMilliseconds),
            maxRetryAfter: Duration = .milliseconds(Defaults.upstreamRetryAfterMaxMilliseconds)
        ) {
            (self.firstDelay, self.maxDelay, self.maxRetryAfter) = (
                firstDelay, max(firstDelay, maxDelay), maxRetryAfter
            )
        }
    }

    /// A copy of the state.
    public struct Snapshot: Sendable {
        public var lastSuccessAt: Date?
        public var lastError: String?
        /// True while failing or rate-limited.
        public var failing: Bool
        /// When the current run of failures began.
        public var failingSince: Date?
        /// Failures in the current run (requests and probes).
        public var failures = 0
        /// When the next probe goes out, while failing.
        public var nextProbeAt: Date?
        /// Until when the upstream asked not to be asked.
        public var rateLimitedUntil: Date?

        /// `ok`, `failing` or `rate-limited`.
        public var state: String {
            if let rateLimitedUntil, rateLimitedUntil > Date() { return "rate-limited" }
            return failing ? "failing" : "ok"
        }
    }

    private struct State {
        var snapshot = Snapshot(failing: false)
        var backoff: Backoff
        /// A probe is out (or scheduled): never two at once.
        var probing = false
        /// The background prober in charge: one that finds another number has been replaced.
        var prober = 0
    }

    private let state: Mutex<State>
    private let retry: Retry
    private let probe: (@Sendable () async throws(UpstreamError) -> Void)?
    private let logger: Logger?

    /// - Parameters:
    ///   - probe: one cheap request to the upstream; without one, the first request after the
    ///     backoff goes out as the probe (one at a time).
    ///   - logger: told when the upstream starts failing and when it is back (once each, not per
    ///     request).
    public init(
        retry: Retry = Retry(), probe: (@Sendable () async throws(UpstreamError) -> Void)? = nil,
        logger: Logger? = nil
    ) {
        self.retry = retry
        self.probe = probe
        self.logger = logger
        state = Mutex(State(backoff: Backoff(base: retry.firstDelay, cap: retry.maxDelay)))
    }

    public var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Why a request must not go out now, or nil if it may. Without a background probe, the
    /// first request due after the backoff goes out as the probe, unless `takingProbe` is false
    /// (a look that sends nothing: nil then, and the request that follows takes it).
    public func refusal(forced: Bool = false, takingProbe: Bool = true, now: Date = Date()) -> UpstreamError? {
        state.withLock { state in
            let snapshot = state.snapshot
            if let until = snapshot.rateLimitedUntil, until > now { return .rateLimited(until: until) }
            guard snapshot.failing, !forced else { return nil }
            if probe == nil, !state.probing, let next = snapshot.nextProbeAt, next <= now {
                if takingProbe { state.probing = true }  // this request is the probe
                return nil
            }
            return .failing(
                since: snapshot.failingSince ?? now, reason: snapshot.lastError ?? "unknown error",
                nextProbe: snapshot.nextProbeAt)
        }
    }

    /// Runs an upstream call unless refused, recording its outcome.
    public func recording<T>(
        forced: Bool = false, _ body: () async throws(UpstreamError) -> T
    )
        async throws(UpstreamError) -> T
    {
        if let refusal = refusal(forced: forced) { throw refusal }
        do {
            let value = try await body()
            recordSuccess(at: Date())
            return value
        } catch .cancelled {
            // Given up on by its callers: the upstream was not asked to the end. If this was
            // the probe, the next request due takes it.
            state.withLock { if probe == nil { $0.probing = false } }
            throw .cancelled
        } catch {
            recordFailure(error)
            throw error
        }
    }

    public func recordSuccess(at date: Date) {
        let wasFailing = state.withLock {
            let wasFailing = $0.snapshot.failing
            $0.snapshot = Snapshot(lastSuccessAt: date, failing: false)
            $0.backoff = Backoff(base: retry.firstDelay, cap: retry.maxDelay)
            $0.probing = false
            return wasFailing
        }
        if wasFailing { logger?.notice("upstream answering again; reads ask it again") }
    }

    public func recordFailure(_ error: UpstreamError, now: Date = Date()) {
        if let prober = recordFailure(error, now: now, byProbe: false), let probe { probeInBackground(probe, prober) }
    }

    /// Records a failure; the number of the background prober to start, when none is out yet.
    @discardableResult
    private func recordFailure(_ error: UpstreamError, now: Date, byProbe: Bool) -> Int? {
        state.withLock { state -> Int? in
            state.snapshot.lastError = error.description
            guard error.tripsCircuit else { return nil }
            if !state.snapshot.failing {
                state.snapshot.failingSince = now
                logger?.warning(
                    "upstream failing; reads answer from the cache until a probe finds it back",
                    metadata: ["error": "\(error)"])
            }
            state.snapshot.failing = true
            state.snapshot.failures += 1
            var next = now.addingTimeInterval(Self.seconds(state.backoff.next()))
            if case .throttled(_, let seconds) = error {
                let wait = min(seconds, Self.seconds(retry.maxRetryAfter))
                state.snapshot.lastError = error.description(waiting: wait)
                let until = now.addingTimeInterval(wait)
                state.snapshot.rateLimitedUntil = until
                next = max(next, until)
            }
            state.snapshot.nextProbeAt = next
            guard probe != nil else {
                state.probing = false  // the request that was the probe failed: the next one after the wait
                return nil
            }
            guard !byProbe, !state.probing else { return nil }
            state.probing = true
            state.prober += 1
            return state.prober
        }
    }

    /// Probes until the upstream answers, one probe at a time, each at its scheduled time.
    private func probeInBackground(_ probe: @escaping @Sendable () async throws(UpstreamError) -> Void, _ number: Int) {
        Task { [weak self] in
            // Goes on while failing and in charge (a success and a new failure start another).
            let next = { (state: State) in
                state.snapshot.failing && state.prober == number ? state.snapshot.nextProbeAt : nil
            }
            while let self, let due = self.state.withLock({ next($0) }) {
                let wait = due.timeIntervalSinceNow
                if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
                guard self.state.withLock({ next($0) }) != nil else { return }
                if let until = self.state.withLock({ $0.snapshot.rateLimitedUntil }), until > Date() { continue }
                // While the probe is out, the next one is not scheduled yet: answers say so.
                self.state.withLock { $0.snapshot.nextProbeAt = nil }
                do throws(UpstreamError) {
                    try await probe()
                    self.recordSuccess(at: Date())
                } catch .busy {
                    // rnm's own connections were all in use: nothing learnt of the upstream;
                    // the probe goes out again in a second.
                    self.state.withLock { $0.snapshot.nextProbeAt = Date().addingTimeInterval(1) }
                } catch {
                    // Any failure of the probe keeps it failing (a 404 there means the upstream is
                    // not the API it should be).
                    self.recordFailure(
                        error.tripsCircuit ? error : .badPayload(error.description), now: Date(),
                        byProbe: true)
                }
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A caching service's health answer: `degraded` while its upstream is failing or its
    /// database cannot be written.
    public func report(
        service: ServiceName, upstreamURL: String, started: Date, cache: [String: Int],
        mirror: ServiceHealth.MirrorState? = nil, storage: ServiceHealth.Storage? = nil
    ) -> ServiceHealth {
        let snapshot = self.snapshot
        let upstream = ServiceHealth.Upstream(
            url: upstreamURL, lastSuccessAt: snapshot.lastSuccessAt?.rfc3339, lastError: snapshot.lastError,
            failingSince: snapshot.failingSince?.rfc3339, state: snapshot.state,
            failures: snapshot.failing ? snapshot.failures : nil,
            nextProbeAt: snapshot.failing ? snapshot.nextProbeAt?.rfc3339 : nil,
            rateLimitedUntil: snapshot.state == "rate-limited" ? snapshot.rateLimitedUntil?.rfc3339 : nil)
        return ServiceHealth(
            service: service.rawValue,
            status: snapshot.failing || (storage.map { $0.state != "ok" } ?? false)
                ? "degraded" : "ok",
            version: rnmVersion, uptimeSeconds: Date().timeIntervalSince(started), cache: cache, upstream: upstream,
            mirror: mirror, storage: storage)
    }
}
