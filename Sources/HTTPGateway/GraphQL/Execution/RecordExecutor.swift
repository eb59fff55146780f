import GraphQL
import Graphiti
import NIOCore
import RnmAPI

/// Runs a planned query over rnm's records and writes its `data` as it resolves: one walk down
/// the plan, each record's entries written straight into the answer's buffer.
///
/// Why not the GraphQL library's executor: it makes a task for every field and list item and a
/// `Map` of the whole answer before it is encoded, ~6.5 KB of task frames a record and 45 µs of
/// CPU (BENCHMARKS "GraphQL's cost per record"). The library still parses, validates, costs
/// and answers introspection; what this runs is held to the library's answers, byte for byte,
/// by `GraphQLExecutorDifferentialTests`.
///
/// The loads are those of the library's run: the same resolvers (``RickAndMortyResolver``),
/// the same ``Level``s (one load per kind per level), the same record budget. Root fields run at
/// once, as the library runs them; below a root field the walk is in order.
enum RecordExecutor {
    /// The answer's `data` and the root fields' errors (null in `data`, located and with their
    /// path, as the library words them).
    static func run(
        _ plan: ExecutionPlan, queryType: String, context: QueryContext
    ) async -> (
        data: ByteBuffer, errors: [GraphQLError]
    ) {
        let answered = await withTaskGroup(of: (Int, ByteBuffer, GraphQLError?).self) { group in
            for (index, field) in plan.fields.enumerated() {
                group.addTask {
                    var answer = AnswerWriter(context: context)
                    do {
                        try await root(field, queryType: queryType, into: &answer)
                        return (index, answer.buffer, nil)
                    } catch {
                        var null = ByteBuffer()
                        null.writeStaticString("null")
                        return (index, null, located(error, field))
                    }
                }
            }
            var answered: [(Int, ByteBuffer, GraphQLError?)] = []
            for await part in group { answered.append(part) }
            return answered.sorted { $0.0 < $1.0 }
        }
        var data = ByteBuffer()
        // Room for every part at once: grown by doubling, a 2 MB answer was copied ~6 times.
        data.reserveCapacity(
            answered.reduce(2) { $0 + $1.1.readableBytes + 1 } + plan.fields.reduce(0) { $0 + $1.keyJSON.count })
        data.writeStaticString("{")
        for (index, field) in plan.fields.enumerated() {
            if index > 0 { data.writeStaticString(",") }
            data.writeBytes(field.keyJSON)
            var value = answered[index].1
            data.writeBuffer(&value)
        }
        data.writeStaticString("}")
        return (data, answered.compactMap(\.2))
    }

    /// An error as the library locates it (`locatedError`): the field's nodes and path.
    private static func located(_ error: any Error, _ field: PlannedField) -> GraphQLError {
        if let error = error as? GraphQLError { return error }
        return GraphQLError(
            message: String(describing: error), nodes: field.nodes, path: IndexPath([field.key]), originalError: error)
    }

    private static func root(_ field: PlannedField, queryType: String, into answer: inout AnswerWriter) async throws {
        if field.name == "__typename" { return answer.string(queryType) }
        if try await root(CharacterNode.self, field, into: &answer) { return }
        if try await root(LocationNode.self, field, into: &answer) { return }
        if try await root(EpisodeNode.self, field, into: &answer) { return }
        // Not reached: the plan holds only the schema's root fields.
        answer.null()
    }

    /// `field` when it is one of `Node`'s kind's root fields; false when it is not.
    private static func root<Node: RecordNode>(
        _: Node.Type, _ field: PlannedField, into answer: inout AnswerWriter
    ) async throws -> Bool {
        let kind = Node.Record.kind
        guard let shape = RootField.allCases.first(where: { $0.name(of: kind) == field.name }) else { return false }
        let resolver = RickAndMortyResolver()
        let arguments = field.arguments
        switch shape {
        case .one:
            let node: Node? = try await resolver.one(try id(arguments["id"]), context: answer.context)
            await answer.object(node, field.selections)
        case .page:
            let filter = arguments["filter"]
            let page: PageNode<Node>? = try await resolver.page(
                arguments["page"].flatMap(number), filter: { name in filter?[name]?.string }, context: answer.context)
            await answer.object(page, field.selections)
        case .many:
            let given = arguments["ids"]
            let ids = try (given?.listValue ?? given.map { [$0] } ?? []).map(id)
            let nodes: [Node?]? = try await resolver.many(ids, context: answer.context)
            await answer.list(nodes, field.selections)
        }
        return true
    }

    private static func id(_ value: InputValues.Value?) throws -> GraphQLIDValue {
        switch value {
        case .string(let text): return GraphQLIDValue(text: text)
        case .int(let number): return GraphQLIDValue(number)
        default: throw FieldError("the id is missing")
        }
    }

    private static func number(_ value: InputValues.Value) -> Int? {
        if case .int(let number) = value { return number }
        return nil
    }
}

extension InputValues.Value {
    fileprivate var listValue: [Self]? {
        if case .list(let items) = self { return items }
        return nil
    }

    fileprivate var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    fileprivate subscript(name: String) -> Self? {
        if case .object(let fields) = self { return fields[name] }
        return nil
    }
}
