import GraphQL

/// The values of a query's variables and arguments, for the types the schema's arguments use
/// (`ID`, `Int`, `String`, `Boolean`, lists of them and the filter inputs). Anything else, or a
/// value these types refuse, is not worked out here: ``ExecutionPlan`` then declines the query,
/// and the GraphQL library runs it and words the error as it always has.
struct InputValues {
    /// A value as the executor reads it: the variables' JSON and the document's literals alike.
    enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case string(String)
        case list([Value])
        case object([String: Value])
    }

    let schema: GraphQLSchema
    /// The variables, coerced to their declared types; one not given (and without a default) is
    /// absent.
    private(set) var variables: [String: Value] = [:]

    struct Unsupported: Error {}

    init(schema: GraphQLSchema, definitions: [VariableDefinition], given: [String: Map]) throws(Unsupported) {
        self.schema = schema
        for definition in definitions {
            let name = definition.variable.name.value
            if let value = given[name] {
                variables[name] = try coerce(try Self.value(of: value), to: definition.type)
            } else if let literal = definition.defaultValue {
                variables[name] = try coerce(try value(of: literal), to: definition.type)
            } else if definition.type is NonNullType {
                throw Unsupported()
            }
        }
    }

    /// A literal of the document as a value, its variables put in.
    func value(of literal: GraphQL.Value) throws(Unsupported) -> Value {
        switch literal {
        case let variable as Variable:
            guard let value = variables[variable.name.value] else { throw Unsupported() }
            return value
        case let int as IntValue:
            guard let value = Int(int.value) else { throw Unsupported() }
            return .int(value)
        case let string as StringValue: return .string(string.value)
        case let bool as BooleanValue: return .bool(bool.value)
        case is NullValue: return .null
        case let list as ListValue:
            var items: [Value] = []
            for item in list.values { items.append(try value(of: item)) }
            return .list(items)
        case let object as ObjectValue:
            var fields: [String: Value] = [:]
            for field in object.fields {
                // A variable not given leaves its input field out, as the library does.
                if let variable = field.value as? Variable, variables[variable.name.value] == nil { continue }
                fields[field.name.value] = try value(of: field.value)
            }
            return .object(fields)
        default: throw Unsupported()
        }
    }

    /// An argument's value: `literal` with the variables put in, when it is one `type` takes.
    /// The library checks it as the field runs (`getArgumentValues`) and fails the whole query
    /// on one it refuses: a variable's null for a non-null argument or list item, an `Int`
    /// literal past 32 bits (validation lets any 64-bit literal through).
    func argument(_ literal: GraphQL.Value, as type: any GraphQLInputType) throws(Unsupported) -> Value {
        let value = try value(of: literal)
        if let variable = literal as? Variable {
            // A variable is checked once per argument type, not at each use: 20 aliases taking
            // one `$ids` of 493 checked 9,860 ids (7% of that query's CPU).
            let use = VariableUse(name: variable.name.value, type: ObjectIdentifier(type as AnyObject))
            let fits = checked.fits[use] ?? Self.value(value, fits: type)
            checked.fits[use] = fits
            guard fits else { throw Unsupported() }
            return value
        }
        guard Self.value(value, fits: type) else { throw Unsupported() }
        return value
    }

    private struct VariableUse: Hashable {
        let name: String
        let type: ObjectIdentifier
    }

    /// The variables' checks so far (a class: ``argument(_:as:)`` is called on a `let` plan input).
    private final class Checked {
        var fits: [VariableUse: Bool] = [:]
    }

    private let checked = Checked()

    private static func value(_ value: Value, fits type: any GraphQLType) -> Bool {
        switch (type, value) {
        case (let nonNull as GraphQLNonNull, _): return value != .null && Self.value(value, fits: nonNull.ofType)
        case (_, .null): return true
        case (let list as GraphQLList, .list(let items)): return items.allSatisfy { Self.value($0, fits: list.ofType) }
        case (let list as GraphQLList, _): return Self.value(value, fits: list.ofType)
        case (let input as GraphQLInputObjectType, .object(let given)):
            guard let fields = try? input.fields() else { return false }
            let known = given.allSatisfy { key, item in fields[key].map { Self.value(item, fits: $0.type) } ?? false }
            return known && fields.allSatisfy { given[$0.key] != nil || !($0.value.type is GraphQLNonNull) }
        case (let scalar as GraphQLScalarType, _): return Self.scalar(scalar.name, value) != nil
        default: return false
        }
    }

    /// `value` as a variable of `type` holds it (GraphQL's input coercion), or unsupported.
    private func coerce(_ value: Value, to type: Type) throws(Unsupported) -> Value {
        switch type {
        case let nonNull as NonNullType:
            if case .null = value { throw Unsupported() }
            return try coerce(value, to: nonNull.type)
        case let list as ListType:
            if case .null = value { return .null }
            guard case .list(let items) = value else { return .list([try coerce(value, to: list.type)]) }
            var coerced: [Value] = []
            for item in items { coerced.append(try coerce(item, to: list.type)) }
            return .list(coerced)
        case let named as NamedType:
            if case .null = value { return .null }
            return try coerce(value, toNamed: named.name.value)
        default: throw Unsupported()
        }
    }

    /// `value` as the scalar `name` takes it (an `ID` given as a number is its text), or nil:
    /// the one statement of which values the schema's scalars take, for variables and literals.
    private static func scalar(_ name: String, _ value: Value) -> Value? {
        switch (name, value) {
        case ("String", .string), ("Boolean", .bool), ("ID", .string): value
        case ("ID", .int(let integer)): .string(String(integer))
        case ("Int", .int(let integer)): Int(Int32.min)...Int(Int32.max) ~= integer ? value : nil
        default: nil
        }
    }

    private func coerce(_ value: Value, toNamed name: String) throws(Unsupported) -> Value {
        if let scalar = Self.scalar(name, value) { return scalar }
        switch value {
        case .object(let given):
            guard let input = schema.getType(name: name) as? GraphQLInputObjectType,
                let fields = try? input.fields()
            else { throw Unsupported() }
            var coerced: [String: Value] = [:]
            for (key, item) in given {
                guard let type = fields[key]?.type as? GraphQLNamedType else { throw Unsupported() }
                if case .null = item {
                    coerced[key] = .null
                } else {
                    coerced[key] = try coerce(item, toNamed: type.name)
                }
            }
            return .object(coerced)
        default: throw Unsupported()
        }
    }

    /// A variable's JSON as a value: a number only when it is a whole number an `Int` holds.
    private static func value(of json: Map) throws(Unsupported) -> Value {
        switch json {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .string(let string): return .string(string)
        case .number(let number):
            let double = number.doubleValue
            guard double.isFinite, double.rounded() == double, abs(double) < 9e15 else { throw Unsupported() }
            return .int(Int(double))
        case .array(let items):
            var values: [Value] = []
            for item in items { values.append(try value(of: item)) }
            return .list(values)
        case .dictionary(let fields):
            var values: [String: Value] = [:]
            for (key, item) in fields { values[key] = try value(of: item) }
            return .object(values)
        case .undefined: throw Unsupported()
        }
    }
}
