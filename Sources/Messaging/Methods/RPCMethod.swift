/// A method of the protocol: its wire name, the service that answers it, and its param and
/// result types, defined once and shared by the CLI, the Gateway and the services.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name, e.g. `characters.get`.
    public let name: String
    /// The service that answers it, as `error.data.service` names it (e.g. `characters`).
    public let owner: String

    /// A method answered by `owner` (by default, the part of its name before the first dot).
    public init(_ name: String, owner: String? = nil) {
        self.name = name
        self.owner = owner ?? String(name.prefix { $0 != "." })
    }

    /// The method without its types: a row of a route table.
    public var route: RPCRoute { RPCRoute(name: name, owner: owner) }
}

/// A method's name and the service that answers it: a route table's row.
public struct RPCRoute: Sendable, Hashable {
    public let name: String
    public let owner: String

    /// The part of the name before the first dot (`characters` of `characters.get`).
    public var prefix: Substring { name.prefix { $0 != "." } }
}
