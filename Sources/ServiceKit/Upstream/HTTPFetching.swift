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
