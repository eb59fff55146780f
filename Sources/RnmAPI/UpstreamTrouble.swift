/// Why an upstream could not be used, told to a person: one sentence per kind of failure, for
/// every screen and command that shows a stale answer. It reads a `Freshness.upstreamError` or
/// a health's `lastError`, which are the services' `UpstreamError` descriptions (ServiceKit);
/// the raw text stays available beside it as a detail, never as the headline.
public enum UpstreamTrouble: Sendable, Equatable {
    case unreachable, timedOut, answeredError(status: Int), unreadable, redirected, tooLarge, askedToWait, busy
    /// A reason this does not know (the sentence stays general).
    case other

    /// Reads a reason as the services write it (`upstream unreachable: …`, `upstream failing
    /// since …: <reason>` reads as its reason).
    public init(_ reason: String) {
        var text = Substring(reason)
        if text.hasPrefix("upstream failing since "), let colon = text.firstRange(of: ": ") {
            text = text[colon.upperBound...]
        }
        func status(after prefix: String) -> Int? {
            guard text.hasPrefix(prefix) else { return nil }
            return Int(text.dropFirst(prefix.count).prefix { $0.isNumber })
        }
        if text.hasPrefix("upstream unreachable") {
            self = .unreachable
        } else if text.hasPrefix("upstream did not answer") {
            self = .timedOut
        } else if text.contains("Retry-After") {
            self = .askedToWait
        } else if let code = status(after: "upstream answered HTTP ") {
            self = .answeredError(status: code)
        } else if text.hasPrefix("upstream answered something unusable") {
            self = .unreadable
        } else if text.hasPrefix("upstream redirected") {
            self = .redirected
        } else if text.hasPrefix("upstream answer is larger") {
            self = .tooLarge
        } else if text.hasPrefix("all "), text.contains("connections to the upstream stayed busy") {
            self = .busy
        } else {
            self = .other
        }
    }

    /// The sentence, without its full stop: "The universities API could not be reached".
    public func sentence(_ service: ServiceName) -> String {
        let api = service.upstreamName
        let sentence =
            switch self {
            case .unreachable: "\(api) could not be reached"
            case .timedOut: "\(api) did not answer in time"
            case .answeredError(let status): "\(api) answered with an error (HTTP \(status))"
            case .unreadable: "\(api) answered something rnm could not read"
            case .redirected: "\(api) sent rnm to another site, which rnm does not follow"
            case .tooLarge: "\(api) sent an answer too large for rnm to keep"
            case .askedToWait: "\(api) asked rnm to wait before asking again"
            case .busy: "every connection rnm keeps to \(api) was busy"
            case .other: "\(api) could not be used"
            }
        return sentence.uppercasedFirst
    }

    /// The words before the time in a stale answer's notice.
    public static let showingCached = "showing data cached at"
}

extension ServiceName {
    /// The upstream API this service keeps, as a sentence names it.
    public var upstreamName: String {
        switch self {
        case .characters: "the Rick and Morty API"
        case .universities: "the universities API"
        case .gateway: "the upstream API"
        }
    }
}

extension String {
    var uppercasedFirst: String { prefix(1).uppercased() + dropFirst() }
}
