/// A method of the protocol: its wire name and its param and result types, defined once
/// and shared by the CLI, the Gateway and the services.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name, e.g. `characters.get`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }
}
