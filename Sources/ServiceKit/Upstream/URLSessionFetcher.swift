import Foundation
import Messaging
import RnmAPI
import ServiceRuntime
import Synchronization
#if canImport(FoundationNetworking)
    import FoundationNetworking
    import ServiceRuntime
#endif

/// Fetches from one configured upstream base URL, and only from it, with `URLSession`
/// (libcurl on Linux): callers name a path and query values, never a URL, so no payload can
/// send a request elsewhere.
///
/// The upstream stays the upstream: a redirect is followed only to the configured scheme,
/// host and port (anything else fails the request, ``UpstreamError/redirected(to:)``), and
/// a body over `maxBodyBytes` is abandoned as it arrives (``UpstreamError/tooLarge(limit:)``).
public final class URLSessionFetcher: Sendable {
    /// The base URL every request goes to.
    public let baseURL: String
    private let timeoutMilliseconds: Int
    private let session: URLSession
    private let transfers: UpstreamTransfers
    private let pool: WaitingSlots
    private let metrics: UpstreamMetrics

    /// - Parameters:
    ///   - baseURL: e.g. `https://rickandmortyapi.com/api` (a trailing slash is dropped).
    ///   - timeoutMilliseconds: for one request, connect to last byte.
    ///   - maxBodyBytes: the largest response body accepted (`RNM_UPSTREAM_MAX_BYTES`).
    ///   - maxConnections: connections at once (`RNM_UPSTREAM_MAX_CONNECTIONS`); a request
    ///     waits for one at most `timeoutMilliseconds`, then has as long for its transfer.
    public init(
        baseURL: String, timeoutMilliseconds: Int, maxBodyBytes: Int = Defaults.upstreamMaxBytes,
        maxConnections: Int = Defaults.upstreamMaxConnections,
        metrics: UpstreamMetrics = UpstreamMetrics(upstream: "upstream")
    ) {
        self.metrics = metrics
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeoutMilliseconds = timeoutMilliseconds
        let configuration = URLSessionConfiguration.ephemeral
        // The deadline is enforced by `get` itself: libcurl's URLSession fails sub-second
        // timeouts at once (measured here: 400 ms and 999 ms fail immediately, 1000 ms works).
        // URLSession's own timeouts are only a backstop, in whole seconds past the deadline.
        let backstop = Double(timeoutMilliseconds / 1000 + 2)
        configuration.timeoutIntervalForRequest = backstop
        // Per request (`get`'s own timeout may be longer: the world list): an hour at most.
        configuration.timeoutIntervalForResource = 3602
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // No HTTP cache under the service's own: every fetch reaches the upstream (a refresh
        // must). Even ignored, a URLCache is consulted per request, and its keys build a
        // Locale, which loads ICU into the process (~3 MB of RSS, BENCHMARKS.md).
        configuration.urlCache = nil
        configuration.httpAdditionalHeaders = ["Accept": "application/json", "User-Agent": "rnm/1"]
        // The pool decides who waits; libcurl's own per-host queue is never reached.
        pool = WaitingSlots(size: maxConnections)
        configuration.httpMaximumConnectionsPerHost = maxConnections
        let base = URL(string: self.baseURL).map(UpstreamTransfers.Origin.init)
        transfers = UpstreamTransfers(origin: base, maxBodyBytes: maxBodyBytes)
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
    }

    /// `GET base + path + ?query` (values percent-encoded); with `validator`, a conditional
    /// request (`If-None-Match`, `If-Modified-Since`) that a `304` answers with no body.
    /// - Throws: ``UpstreamError`` when there is no complete HTTP answer.
    /// `timeoutMilliseconds` replaces the fetcher's for this one request (the world list).
    public func get(
        path: String, query: [(String, String)], validator: Validator? = nil, timeoutMilliseconds: Int? = nil
    ) async throws(UpstreamError)
        -> HTTPAnswer
    {
        let url = QueryString.append(query, to: baseURL + path)
        guard let requestURL = URL(string: url) else { throw .unreachable("bad URL \(url)") }
        var request = URLRequest(url: requestURL)
        if let etag = validator?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let date = validator?.lastModified { request.setValue(date, forHTTPHeaderField: "If-Modified-Since") }
        let started = ContinuousClock.now
        do {
            let answer = try await get(request, timeoutMilliseconds: timeoutMilliseconds ?? self.timeoutMilliseconds)
            metrics.answered(status: answer.status, bytes: answer.body.count, after: ContinuousClock.now - started)
            return answer
        } catch {
            metrics.failed(error, after: ContinuousClock.now - started)
            throw error
        }
    }

    /// ``get(path:query:validator:timeoutMilliseconds:)`` before it is counted.
    private func get(_ request: URLRequest, timeoutMilliseconds: Int) async throws(UpstreamError) -> HTTPAnswer {
        do {
            let (data, response) = try await fetch(request, timeout: timeoutMilliseconds)
            let header = { (name: String) in response.value(forHTTPHeaderField: name) }
            return HTTPAnswer(
                status: response.statusCode, body: data,
                validator: Validator(etag: header("ETag"), lastModified: header("Last-Modified")),
                retryAfterSeconds: HTTPAnswer.retryAfter(header("Retry-After")))
        } catch let error as UpstreamError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch let error as URLError where error.code == .timedOut {
            throw .timedOut(milliseconds: timeoutMilliseconds)
        } catch let error as URLError where error.code == .networkConnectionLost {
            throw .badPayload("connection closed mid-body (truncated)")
        } catch {
            throw .unreachable(Self.reason(error, host: request.url))
        }
    }

    /// Why no connection was made, in a person's words (libcurl's own, `Failed to connect to
    /// 127.0.0.1 port 18182 after 0 ms: Couldn't connect to server`, reached the web app's
    /// banners): what happened, and to which host.
    static func reason(_ error: any Error, host url: URL?) -> String {
        let host = url.map { [$0.host, $0.port.map(String.init)].compactMap { $0 }.joined(separator: ":") } ?? "?"
        guard let error = error as? URLError else { return "\(error.localizedDescription) (\(host))" }
        switch error.code {
        // libcurl's "could not connect": refused, or the host or network unreachable.
        case .cannotConnectToHost: return "nothing answers at \(host) (refused or unreachable)"
        case .cannotFindHost, .dnsLookupFailed: return "the name \(url?.host ?? host) does not resolve (DNS)"
        case .notConnectedToInternet: return "this machine has no network to reach \(host)"
        case .badServerResponse, .zeroByteResource: return "\(host) closed the connection without an answer"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "the secure connection to \(host) failed (TLS: \(error.localizedDescription))"
        default: return "no connection to \(host) (\(error.localizedDescription))"
        }
    }

    /// One transfer, abandoned (and cancelled) at the deadline or when the caller is cancelled.
    /// The caller never waits for libcurl to acknowledge a cancellation.
    private func fetch(_ request: URLRequest, timeout: Int) async throws -> (Data, HTTPURLResponse) {
        guard await pool.acquire(within: .milliseconds(timeoutMilliseconds)) else {
            try Task.checkCancellation()
            throw UpstreamError.busy(connections: pool.size, waitedMilliseconds: timeoutMilliseconds)
        }
        defer { pool.release() }
        var request = request
        // URLSession's own timeouts are a backstop past the deadline (see init).
        request.timeoutInterval = Double(timeout / 1000 + 2)
        let task = session.dataTask(with: request)
        let outcome = transfers.register(task)
        // The deadline; stopped as soon as the transfer is over, however it ended.
        let timer = Task {
            guard (try? await Task.sleep(for: .milliseconds(timeout))) != nil else { return }
            if outcome.finish(.failure(UpstreamError.timedOut(milliseconds: timeout))) { task.cancel() }
        }
        defer {
            timer.cancel()
            transfers.forget(task)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.start(continuation)
                task.resume()
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
            task.cancel()
        }
    }
}
