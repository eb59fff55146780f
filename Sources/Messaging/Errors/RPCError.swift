#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one typed error of the protocol (docs/PROTOCOL.md §4): every failure that crosses a socket
/// is one of these, and ``Code`` is the only place codes and retryability are decided.
public struct RPCError: Error, Sendable, Equatable, Decodable, CustomStringConvertible {
    /// A wire error code.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// -32700: the payload is not JSON.
        public static let parseError = Code(rawValue: -32700)
        /// -32600: not a valid request (not an object, no method, batch, bad frame).
        public static let invalidRequest = Code(rawValue: -32600)
        /// -32601: no such method.
        public static let methodNotFound = Code(rawValue: -32601)
        /// -32602: invalid params.
        public static let invalidParams = Code(rawValue: -32602)
        /// -32603: internal error (a bug; logged with the request id).
        public static let internalError = Code(rawValue: -32603)
        /// -32001: not found.
        public static let notFound = Code(rawValue: -32001)
        /// -32002: upstream unavailable: nothing cached, or a sync it stopped.
        public static let upstreamUnavailable = Code(rawValue: -32002)
        /// -32003: the Gateway cannot reach the service.
        public static let serviceUnavailable = Code(rawValue: -32003)
        /// -32004: no answer within the deadline.
        public static let timeout = Code(rawValue: -32004)
        /// -32005: too many requests in flight.
        public static let overloaded = Code(rawValue: -32005)
        /// -32006: the request or its reply would not fit in one frame.
        public static let tooLarge = Code(rawValue: -32006)
        /// -32007: the service could not write its database (the disk full, the file read-only or
        /// damaged) and the request needed it written (a sync, a favorite).
        public static let storageUnavailable = Code(rawValue: -32007)
        /// -32800: the request was cancelled by its client (`rpc.cancel`, sent when the client
        /// gave up on it); the reply goes to nobody.
        public static let cancelled = Code(rawValue: -32800)

        /// Whether the same request may succeed if sent again later.
        public var isRetryable: Bool {
            [.upstreamUnavailable, .serviceUnavailable, .timeout, .overloaded, .storageUnavailable].contains(self)
        }

        public var description: String { String(rawValue) }

        /// A short name for metrics' labels (`not_found`); `error_other` for a code this
        /// protocol does not define (one label for all: codes must not make series without end).
        public var name: String {
            switch self {
            case .parseError: "parse_error"
            case .invalidRequest: "invalid_request"
            case .methodNotFound: "method_not_found"
            case .invalidParams: "invalid_params"
            case .internalError: "internal_error"
            case .notFound: "not_found"
            case .upstreamUnavailable: "upstream_unavailable"
            case .serviceUnavailable: "service_unavailable"
            case .timeout: "timeout"
            case .overloaded: "overloaded"
            case .tooLarge: "too_large"
            case .storageUnavailable: "storage_unavailable"
            case .cancelled: "cancelled"
            default: "error_other"
            }
        }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(Int.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// The wire code.
    public var code: Code
    /// A sentence a person can act on.
    public var message: String
    /// The service that raised it: `gateway`, `characters` or `universities`.
    public var service: String
    /// More detail, when there is any.
    public var detail: String?
    /// The upstream's HTTP status, for upstream failures.
    public var upstreamStatus: Int?

    /// Whether the same request may succeed if sent again later.
    public var retryable: Bool { code.isRetryable }

    public init(_ code: Code, _ message: String, service: String, detail: String? = nil, upstreamStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.service = service
        self.detail = detail
        self.upstreamStatus = upstreamStatus
    }

    public var description: String { "\(message) (code \(code.rawValue), \(service))" }

    /// The most of a client's own input an error message repeats (in characters).
    public static let excerptLength = 64

    /// `text` as an error message may quote it: at most ``excerptLength`` characters, with
    /// how much was left out. An error never echoes a client's input whole, so it can never
    /// be bigger than the request that caused it.
    public static func excerpt(_ text: some StringProtocol) -> String {
        let count = text.count
        guard count > excerptLength else { return String(text) }
        return "\(text.prefix(excerptLength))… (\(count) characters)"
    }

    // MARK: Wire form: {"code", "message", "data": {"service", "retryable", ...}}; written by
    // ``write(into:)`` (RPCError+Wire.swift)

    private enum CodingKeys: String, CodingKey { case code, message, data }
    private enum DataKeys: String, CodingKey { case service, retryable, detail, upstreamStatus }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        message = try container.decode(String.self, forKey: .message)
        let data = try? container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        service = (try? data?.decodeIfPresent(String.self, forKey: .service)) ?? "unknown"
        detail = try? data?.decodeIfPresent(String.self, forKey: .detail)
        upstreamStatus = try? data?.decodeIfPresent(Int.self, forKey: .upstreamStatus)
    }
}

/// A domain error that knows its place in the protocol's error table.
public protocol RPCErrorConvertible: Error {
    /// The wire error for this failure, raised by `service`.
    func rpcError(service: String) -> RPCError
}

extension RPCError {
    /// Maps any error thrown while serving a request to its wire error. This is the one place
    /// where errors become codes: domain errors say what they are through
    /// ``RPCErrorConvertible``; anything unknown is an internal error.
    public init(mapping error: any Error, service: String) {
        switch error {
        case let error as RPCError:
            self = error
        case let error as any RPCErrorConvertible:
            self = error.rpcError(service: service)
        case let error as EnvelopeError:
            switch error {
            case .notJSON(let failure):
                self.init(.parseError, "payload is not valid JSON: \(failure)", service: service)
            case .invalid(let reason, _):
                self.init(.invalidRequest, "invalid request: \(reason)", service: service)
            }
        case let error as FrameDecoderError:
            self.init(.invalidRequest, "bad frame: \(error)", service: service)
        case let error as FrameTimeoutError:
            self.init(.invalidRequest, "bad frame: \(error)", service: service)
        case let error as DecodingError:
            self.init(.invalidParams, "invalid params: \(Self.describe(error))", service: service)
        case let error as FrameTooLargeError:
            self.init(.tooLarge, error.description, service: service)
        case is CancellationError:
            self.init(.cancelled, "request cancelled by its client", service: service)
        default:
            self.init(.internalError, "internal error", service: service, detail: String(describing: error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func field(_ context: DecodingError.Context) -> String? {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? nil : "\"\(keys.joined(separator: "."))\""
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(field(context) ?? "params") must be \(Self.expectation(type))"
        case .valueNotFound(let type, let context):
            return "\(field(context) ?? "params") must be \(Self.expectation(type)), not null"
        case .keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        case .dataCorrupted(let context):
            // Foundation says "not valid JSON" for a number that does not fit the type
            // (`1.5` or `1e30` for an integer): name the field instead.
            guard let field = field(context) else {
                return "params are not valid: \(RPCError.excerpt(context.debugDescription))"
            }
            return "\(field) must be a whole number (it is a fraction, or too large)"
        @unknown default:
            return String(describing: error)
        }
    }

    /// What a param of `type` must be, in words.
    private static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
