import Graphiti
import RnmAPI

/// A record as the GraphQL schema shows it, with the level it was met at (to load what it links
/// to together with its siblings).
protocol RecordNode: GraphQLObject, AnyObject {
    associatedtype Record: LinkedRecord
    init(_ record: Record, level: Level)
}

extension Level {
    /// `ids`' records of `Node`'s kind, as nodes of the next level, in id order without repeats;
    /// ids that do not exist are left out (as the API's server answers: its REST `getMany`).
    /// Each use counts against the record budget before anything is asked or made, an aliased
    /// copy of the field too: what is counted is what the answer holds.
    ///
    /// A failure is noted in the query's errors, not thrown: the GraphQL library loses the whole
    /// answer when an error inside a list item reaches the item (`MapError`), and the API's
    /// schema makes these lists non-null. Records that could not be checked (the upstream down,
    /// not cached) are left out and named in the error; the others are answered.
    func nodes<Node: RecordNode>(_ ids: [Int], as _: Node.Type) async -> [Node?] {
        let wanted = Set(ids).sorted()
        do {
            try context.reserve(wanted.count)
            let (records, unchecked, next) = try await linked(Node.Record.self, counted: wanted.count)
            let missing = wanted.filter(unchecked.contains)
            if !missing.isEmpty { context.note(FieldError(Node.Record.kind.notCachedMessage(missing))) }
            return wanted.compactMap { records[$0].map { Node($0, level: next) } }
        } catch {
            context.note(error)
            return []
        }
    }
}

/// A list page as GraphQL shows it (`Characters`, `Locations`, `Episodes`).
struct PageNode<Node: RecordNode>: GraphQLObject {
    typealias Field = PageField<Node>
    /// `Characters` for `Character`.
    static var typeName: String { Node.typeName + "s" }

    let info: InfoNode?
    let results: [Node?]?
}

/// `Info`: page *numbers*, not links. Past the last page, or with no match, every field is null
/// and `results` is empty, as the API's GraphQL server answers.
struct InfoNode: Codable, GraphQLObject {
    typealias Field = InfoField
    static let typeName = "Info"

    var count: Int?
    var pages: Int?
    var next: Int?
    var prev: Int?
}
