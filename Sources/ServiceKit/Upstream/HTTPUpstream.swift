import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP answer: status and body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var body: Data
}

/// Fetches from one configured upstream base URL, and only from it: callers name a path and
/// query values, never a URL, so no payload can send a request elsewhere.
public protocol HTTPFetching: Sendable {
    /// The base URL every request goes to.
    var baseURL: String { get }
    /// `GET base + path + ?query` (values percent-encoded).
    /// - Throws: ``UpstreamError/unreachable(_:)`` or ``UpstreamError/timedOut(milliseconds:)``.
    func get(path: String, query: [(String, String)]) async throws(UpstreamError) -> HTTPAnswer
}

/// ``HTTPFetching`` with `URLSession` (libcurl on Linux).
public final class URLSessionFetcher: HTTPFetching {
    public let baseURL: String
    private let timeoutMilliseconds: Int
    private let session: URLSession

    /// - Parameters:
    ///   - baseURL: e.g. `https://rickandmortyapi.com/api` (a trailing slash is dropped).
    ///   - timeoutMilliseconds: for one request, connect to last byte.
    public init(baseURL: String, timeoutMilliseconds: Int) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeoutMilliseconds = timeoutMilliseconds
        let configuration = URLSessionConfiguration.ephemeral
        // The deadline is enforced by `get` itself: libcurl's URLSession fails sub-second
        // timeouts at once (measured here: 400 ms and 999 ms fail immediately, 1000 ms works).
        // URLSession's own timeouts are only a backstop, in whole seconds past the deadline.
        let backstop = Double(timeoutMilliseconds / 1000 + 2)
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpAdditionalHeaders = ["Accept": "application/json", "User-Agent": "rnm/1"]
        session = URLSession(configuration: configuration)
    }

    public func get(path: String, query: [(String, String)]) async throws(UpstreamError) -> HTTPAnswer {
        let url = Self.url(base: baseURL, path: path, query: query)
        guard let requestURL = URL(string: url) else { throw .unreachable("bad URL \(url)") }
        do {
            let (data, response) = try await fetch(requestURL)
            guard let http = response as? HTTPURLResponse else { throw UpstreamError.badPayload("not an HTTP response") }
            return HTTPAnswer(status: http.statusCode, body: data)
        } catch let error as UpstreamError {
            throw error
        } catch let error as URLError where error.code == .timedOut {
            throw .timedOut(milliseconds: timeoutMilliseconds)
        } catch let error as URLError where error.code == .networkConnectionLost {
            throw .badPayload("connection closed mid-body (truncated)")
        } catch {
            throw .unreachable(error.localizedDescription)
        }
    }

    /// One transfer, abandoned (and cancelled) at the deadline or when the caller is cancelled.
    /// The caller never waits for libcurl to acknowledge a cancellation.
    private func fetch(_ url: URL) async throws -> (Data, URLResponse) {
        let outcome = TransferOutcome()
        let task = session.dataTask(with: url) { data, response, error in
            if let data, let response {
                outcome.finish(.success((data, response)))
            } else {
                outcome.finish(.failure(error ?? URLError(.unknown)))
            }
        }
        let timeout = timeoutMilliseconds
        // The deadline; stopped as soon as the transfer is over, however it ended.
        let timer = Task {
            guard (try? await Task.sleep(for: .milliseconds(timeout))) != nil else { return }
            if outcome.finish(.failure(UpstreamError.timedOut(milliseconds: timeout))) { task.cancel() }
        }
        defer { timer.cancel() }
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

    /// `base + path + ?k=v&...`, each key and value percent-encoded (RFC 3986 unreserved kept).
    public static func url(base: String, path: String, query: [(String, String)]) -> String {
        var url = base + path
        if !query.isEmpty {
            url += "?" + query.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        }
        return url
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}

/// The result of one transfer, delivered once: by libcurl, the deadline or cancellation,
/// whichever comes first.
private final class TransferOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var early: Result<(Data, URLResponse), any Error>?
        var done = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let early = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Delivers `result` unless one was delivered already; true when this one counted.
    @discardableResult
    func finish(_ result: Result<(Data, URLResponse), any Error>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<(Data, URLResponse), any Error>?? in
            guard !state.done else { return .none }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = result
                return .some(nil)
            }
            state.continuation = nil
            return .some(continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(with: result)
        return true
    }
}
