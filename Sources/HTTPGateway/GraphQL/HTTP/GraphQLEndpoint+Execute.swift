import GraphQL
import NIOCore

extension GraphQLEndpoint {
    /// Runs the document: with ``RecordExecutor`` when ``ExecutionPlan`` plans it (every query
    /// of records), else with the GraphQL library (introspection, and errors it words itself).
    func execute(
        _ document: Document, _ body: GraphQLRequest, context: QueryContext
    ) async -> (data: ByteBuffer?, errors: [GraphQLError]) {
        if !libraryExecutor,
            let plan = ExecutionPlan(
                document, operationName: body.operationName, variables: body.variables, schema: schema.schema,
                shape: shape)
        {
            let (data, errors) = await RecordExecutor.run(plan, queryType: shape.queryType, context: context)
            return (data, errors)
        }
        let result: GraphQLResult
        do {
            result = try await GraphQL.execute(
                schema: schema.schema, documentAST: document, rootValue: RickAndMortyResolver(), context: context,
                variableValues: body.variables, operationName: body.operationName)
        } catch {
            logger.error("graphql execution failed", metadata: ["error": "\(error)"])
            result = GraphQLResult(errors: [GraphQLError(message: "internal error")])
        }
        var data: ByteBuffer? = nil
        if let map = result.data {
            var buffer = ByteBuffer()
            if GraphQLResponseBody.write(map, into: &buffer) { data = buffer }
        }
        return (data, result.errors)
    }
}
