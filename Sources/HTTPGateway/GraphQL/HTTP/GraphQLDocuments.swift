import GraphQL
import Graphiti
import Messaging

/// GraphQL documents made ready to run: measured, parsed, costed and validated, each step
/// bounded by what the one before it let through, and kept by their text, refusals too (a
/// client sends the same few queries again and again; an attacker the same refused one).
/// Runs on ``GraphQLWorkers``, never on an event loop.
struct GraphQLDocuments: Sendable {
    let schema: GraphQLSchema
    let limits: GraphQLLimits
    let fanOut: IntrospectionFanOut
    /// By the text, byte for byte (``ExactText``): a query in another Unicode normalisation is
    /// another query, literals and all (`RNM_GRAPHQL_CACHE_BYTES` of query text).
    let kept: ExpiringCache<Prepared>

    /// graphql-js stops validating at 100 errors (`maxErrors`); so does rnm's answer.
    static let maxErrors = 100
    /// Error locations are computed by GraphQL 4.3.0's `getLocation`, which scans the whole text
    /// with a regular expression for each one (quadratic: issue 35, finding 3; a patched library
    /// would build a line table once per document). Errors get locations while errors × bytes
    /// stays under this: 256 KB of scanning, about 50 ms of CPU (measured 0.18 µs a byte).
    static let maxLocatedBytes = 256 * 1024

    enum Prepared: Sendable {
        case document(Document)
        case refused([GraphQLError])
    }

    init(schema: GraphQLSchema, limits: GraphQLLimits) {
        self.schema = schema
        self.limits = limits
        fanOut = IntrospectionFanOut(schema: schema)
        kept = ExpiringCache(maxBytes: limits.cacheBytes)
    }

    /// The document of `query`, or the errors that refuse it.
    func prepare(_ query: String) -> Prepared {
        if let known = kept.entry(for: query)?.value { return known }
        let prepared = measureAndValidate(query)
        kept.store(prepared, for: query, size: query.utf8.count, expires: .now + .seconds(365 * 86400))
        return prepared
    }

    private func measureAndValidate(_ query: String) -> Prepared {
        if query.utf8.count > limits.maxQueryBytes {
            return .refused([
                GraphQLLimits.exceeded("the query is over \(limits.maxQueryBytes) bytes (RNM_GRAPHQL_MAX_QUERY_BYTES)")
            ])
        }
        // Before the parser: its recursion (brackets) and its work (tokens). Arguments add a
        // bracket or two to a level, introspection (not counted in depth) a few more.
        let scan = QueryCost.scan(query)
        if scan.nesting > max(limits.maxDepth + 8, 24) { return .refused([Self.depthError(limits.maxDepth)]) }
        if scan.tokens > limits.maxTokens {
            return .refused([
                GraphQLLimits.exceeded("the query holds more than \(limits.maxTokens) tokens (RNM_GRAPHQL_MAX_TOKENS)")
            ])
        }
        // Parsed without locations first: validation errors then cost no text scan each.
        let source = Source(body: query, name: "GraphQL request")
        let bare: Document
        do {
            bare = try GraphQL.parse(source: source, noLocation: true)
        } catch let error as GraphQLError {
            // A syntax error: one, located (one scan of the text).
            return .refused([error])
        } catch {
            return .refused([GraphQLError(error)])
        }
        let cost = QueryCost(bare, fanOut: fanOut)
        if cost.depth > limits.maxDepth { return .refused([Self.depthError(limits.maxDepth)]) }
        if cost.aliases > limits.maxAliases {
            return .refused([
                GraphQLLimits.exceeded(
                    "the query holds more than \(limits.maxAliases) aliases (RNM_GRAPHQL_MAX_ALIASES)")
            ])
        }
        if cost.cost > limits.maxCost {
            return .refused([
                GraphQLLimits.exceeded(
                    "the query costs more than \(limits.maxCost) "
                        + "(RNM_GRAPHQL_MAX_COST: fields as fragments expand them)")
            ])
        }
        let invalid = GraphQL.validate(schema: schema, ast: bare)
        guard let located = try? GraphQL.parse(source: source) else { return .refused(invalid) }
        if invalid.isEmpty { return .document(located) }
        let positions = invalid.reduce(0) { $0 + max(1, $1.nodes.count) }
        if invalid.count <= Self.maxErrors, positions * query.utf8.count <= Self.maxLocatedBytes {
            return .refused(GraphQL.validate(schema: schema, ast: located))
        }
        var first = Array(invalid.prefix(Self.maxErrors))
        if invalid.count > Self.maxErrors {
            first.append(GraphQLError(message: "Too many validation errors, error limit reached. Validation aborted."))
        }
        return .refused(first)
    }

    static func depthError(_ limit: Int) -> GraphQLError {
        GraphQLLimits.exceeded("the query nests deeper than \(limit) levels (RNM_GRAPHQL_MAX_DEPTH)")
    }
}
