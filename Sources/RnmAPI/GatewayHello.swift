/// `gateway.hello` params: what a client promises about the connection it is sent on. Both
/// members may be left out (`{}` only asks for the connection's mode).
public struct GatewayHello: Codable, Sendable, Equatable {
    /// Who is asking, for the Gateway's log (`HTTPGateway`).
    public var client: String
    /// The client reads every reply as it comes (it relays many clients' requests): replies
    /// that pile up unread hold the connection back (it is not read until they drain) instead
    /// of being dropped.
    public var holdReplies: Bool

    public init(client: String, holdReplies: Bool) {
        self.client = client
        self.holdReplies = holdReplies
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        client = try container.decodeIfPresent(String.self, forKey: .client) ?? ""
        holdReplies = try container.decodeIfPresent(Bool.self, forKey: .holdReplies) ?? false
    }
}

/// `gateway.hello` result: how the Gateway treats the connection from now on.
public struct GatewayLinkMode: Codable, Sendable, Equatable {
    /// Whether replies are held (true) or dropped past the connection's buffer (false).
    public var holdsReplies: Bool
    /// Requests the connection may have in flight (`RNM_MAX_IN_FLIGHT_PER_CONNECTION`): past
    /// it, -32005. A client relaying many makes the rest wait for a slot.
    public var maxInFlight: Int?

    public init(holdsReplies: Bool, maxInFlight: Int? = nil) {
        self.holdsReplies = holdsReplies
        self.maxInFlight = maxInFlight
    }
}
