import Foundation
import RnmAPI

/// An HTTP answer: status, body, and the headers rnm acts on.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var body: Data
    /// The validator to ask again with (`ETag` / `Last-Modified`), when the upstream gave one.
    public var validator: Validator?
    /// `Retry-After` in seconds (from seconds or an HTTP date), when the upstream gave one.
    public var retryAfterSeconds: Double?

    public init(status: Int, body: Data, validator: Validator? = nil, retryAfterSeconds: Double? = nil) {
        self.status = status
        self.body = body
        self.validator = validator
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// True for `304 Not Modified`: the copy asked with ``Validator`` is still the upstream's.
    public var notModified: Bool { status == 304 }

    /// Throws unless the status is 200: ``UpstreamError/throttled(status:retryAfterSeconds:)``
    /// for a 429 or 503 that says when to come back, ``UpstreamError/status(_:)`` otherwise.
    public func expectOK() throws(UpstreamError) {
        guard status != 200 else { return }
        if status == 429 || status == 503, let retryAfterSeconds {
            throw .throttled(status: status, retryAfterSeconds: retryAfterSeconds)
        }
        throw .status(status)
    }

    /// `Retry-After: 4` or `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`, as seconds from `now`.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0, seconds.isFinite { return seconds }
        return Date(httpDate: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// What identifies a stored copy of an upstream answer to the upstream (RFC 9110 §8.8): sent
/// back as `If-None-Match` / `If-Modified-Since`, so an unchanged answer costs a `304` and no body.
public struct Validator: Codable, Sendable, Equatable {
    /// `ETag` (Express sends a weak one, `W/"…"`, on every answer).
    public var etag: String?
    /// `Last-Modified`.
    public var lastModified: String?

    public init?(etag: String?, lastModified: String?) {
        guard etag != nil || lastModified != nil else { return nil }
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// What a conditional request brought: a new answer (with its validator, to ask with next
/// time), or word that the stored copy is still the upstream's (`304`, no body).
public enum Revalidated<Value: Sendable>: Sendable {
    case modified(Value, Validator?)
    case notModified
}
