import Graphiti
import RnmAPI

/// The root fields of the API's schema (`graphql/resolvers.js`): a record by id (null when it
/// does not exist), a page of a list with filters (`results: []` past the end or with no match),
/// and records by ids (those that do not exist left out).
struct RickAndMortyResolver: Sendable {
    struct IDArguments: Codable, Sendable {
        let id: GraphQLIDValue
    }

    struct IDsArguments: Codable, Sendable {
        let ids: [GraphQLIDValue]
    }

    struct ListArguments<Filter: ListParams>: Codable, Sendable {
        let page: Int?
        let filter: Filter?
    }

    // MARK: - One way for every kind (the schema's root fields call these)

    /// `character(id:)`: the id read as the API's server reads it (it asks its REST route
    /// `/<kind>/<id>`); null when no record has it.
    func one<Node: RecordNode>(_ id: GraphQLIDValue, context: QueryContext) async throws -> Node? {
        switch IDSegment(id.text) {
        case .one(let id): try await (records([id], context: context) as [Node?]).first ?? nil
        case .absent, .many: nil
        case .badArray: throw FieldError(IDSegment.badArrayMessage)
        case .badID: throw FieldError(IDSegment.badIDMessage)
        }
    }

    /// `charactersByIds(ids:)`: the ids joined as the API's server joins them for its REST route
    /// `/<kind>/1,2,3`; those that do not exist left out.
    func many<Node: RecordNode>(_ ids: [GraphQLIDValue], context: QueryContext) async throws -> [Node?]? {
        switch IDSegment(ids.map(\.text).joined(separator: ",")) {
        case .one(let id): try await records([id], context: context)
        case .many(let ids): try await records(ids, context: context)
        case .absent: []
        case .badArray: throw FieldError(IDSegment.badArrayMessage)
        case .badID: throw FieldError(IDSegment.badIDMessage)
        }
    }

    private func records<Node: RecordNode>(_ ids: [Int], context: QueryContext) async throws -> [Node?] {
        let wanted = Set(ids.filter(RecordKind.ids.contains)).sorted()
        try context.reserve(wanted.count)
        let (found, unchecked) = try await context.records(Node.Record.self, wanted)
        // As the REST answer's 502: at the root, a record that could not be checked fails the field.
        guard unchecked.isEmpty else { throw FieldError(Node.Record.kind.notCachedMessage(unchecked.sorted())) }
        let records = wanted.compactMap { found[$0] }
        let level = Level(records, context: context)
        return records.map { Node($0, level: level) }
    }

    /// `characters(page:filter:)`: a page of the list.
    func page<Node: RecordNode>(
        _ arguments: ListArguments<Node.Record.ListParamsType>, context: QueryContext
    ) async throws -> PageNode<Node>? {
        let filters = arguments.filter?.filterValues ?? []
        return try await page(
            arguments.page, filter: { name in filters.first { $0.name == name }?.value }, context: context)
    }

    /// A page of the list, `filter` giving each filter's value by its name (nil: not given).
    func page<Node: RecordNode>(
        _ number: Int?, filter: (String) -> String?, context: QueryContext
    ) async throws -> PageNode<Node>? {
        let nothing = PageNode<Node>(info: InfoNode(), results: [])
        let page = max(1, number ?? 1)
        var params = Node.Record.ListParamsType(page: page) { name in
            let value = filter(name)?.trimmingWhitespace
            return value?.isEmpty == false ? value : nil
        }
        params.page = page
        let filters = params.filterValues
        guard !Node.Record.kind.matchesNothing(page: page, filter: { name in filters.first { $0.name == name }?.value })
        else { return nothing }
        let found = try await context.list(Node.Record.self, params)
        guard page <= found.pages else { return nothing }
        let level = Level(found.items, context: context)
        return PageNode(
            info: InfoNode(
                count: found.count, pages: found.pages, next: page < found.pages ? page + 1 : nil,
                prev: page > 1 ? page - 1 : nil),
            results: found.items.map { Node($0, level: level) })
    }
}
