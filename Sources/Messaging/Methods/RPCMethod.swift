/// A method of the protocol: its wire name, the service that answers it, and its param and
/// result types, defined once and shared by the CLI, the Gateway and the services.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name, e.g. `characters.get`.
    public let name: String
    /// The service that answers it, as `error.data.service` names it (e.g. `characters`).
    public let owner: String
    /// The largest `params` it accepts, in bytes (``RPCRoute/defaultMaxParamsBytes``).
    public let maxParamsBytes: Int

    /// A method answered by `owner` (by default, the part of its name before the first dot).
    public init(_ name: String, owner: String? = nil, maxParamsBytes: Int = RPCRoute.defaultMaxParamsBytes) {
        self.name = name
        self.owner = owner ?? String(name.prefix { $0 != "." })
        self.maxParamsBytes = maxParamsBytes
    }

    /// The method without its types: a row of a route table.
    public var route: RPCRoute { RPCRoute(name: name, owner: owner, maxParamsBytes: maxParamsBytes) }
}

/// A method's name, the service that answers it and the size of what it accepts: a route
/// table's row.
public struct RPCRoute: Sendable, Hashable {
    public let name: String
    public let owner: String
    /// The largest `params` the method accepts, in bytes: a request is the size of what it
    /// asks, and a padded one is refused before it costs a service anything.
    public let maxParamsBytes: Int

    /// Every method's params today are under 1 KB; a string parameter is at most
    /// `RNM_MAX_PARAM_BYTES` (256) bytes, which JSON escapes (`\u00e9`) can make six times
    /// longer: 16 KiB leaves room for all of it, and refuses megabytes of padding.
    public static let defaultMaxParamsBytes = 16_384

    /// The part of the name before the first dot (`characters` of `characters.get`).
    public var prefix: Substring { name.prefix { $0 != "." } }
}
