import Foundation
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
        let session = self.session
        let timeout = timeoutMilliseconds
        do {
            let answer = try await withThrowingTaskGroup(of: HTTPAnswer?.self) { group in
                group.addTask {
                    let (data, response) = try await session.data(from: requestURL)
                    guard let http = response as? HTTPURLResponse else { throw UpstreamError.badPayload("not an HTTP response") }
                    return HTTPAnswer(status: http.statusCode, body: data)
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(timeout))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let answer else { throw UpstreamError.timedOut(milliseconds: timeout) }
            return answer
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
