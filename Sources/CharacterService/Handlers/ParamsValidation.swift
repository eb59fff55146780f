import Messaging
import RnmAPI

/// Checks params and turns them into upstream filters (docs/PROTOCOL.md §6). Every string
/// parameter has a length limit, so no request can make a service do unbounded work or store
/// unbounded keys.
struct ParamsValidation: Sendable {

    /// The longest string parameter, in bytes (`RNM_MAX_PARAM_BYTES`).
    let maxParamBytes: Int

    func page(_ page: Int?) throws -> Int {
        let page = page ?? 1
        guard RecordKind.pages.contains(page) else {
            throw CharacterError.invalidParams("\"page\" must be from 1 to \(RecordKind.pages.upperBound), got \(page)")
        }
        return page
    }

    func id(_ id: Int, field: String = "id") throws -> Int {
        guard RecordKind.ids.contains(id) else {
            throw CharacterError.invalidParams("\"\(field)\" must be from 1 to \(RecordKind.ids.upperBound), got \(id)")
        }
        return id
    }

    func ids(_ ids: [Int]) throws -> [Int] {
        guard (1...IDsParams.maxIDs).contains(ids.count) else {
            throw CharacterError.invalidParams("\"ids\" must hold 1 to \(IDsParams.maxIDs) ids, got \(ids.count)")
        }
        for id in ids { _ = try self.id(id, field: "ids") }
        var seen = Set<Int>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// Filters in the API's order, lowercased (the API matches case-insensitively), empty ones dropped.
    func filters(_ pairs: [(String, String?)], allowed: [String: [String]] = [:]) throws -> [(String, String)] {
        try pairs.compactMap { name, value in
            guard let value = value?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else {
                return nil
            }
            guard value.utf8.count <= maxParamBytes else {
                throw CharacterError.invalidParams(
                    "\"\(name)\" is \(value.utf8.count) bytes; the limit is \(maxParamBytes) (RNM_MAX_PARAM_BYTES)")
            }
            if let choices = allowed[name], !choices.contains(value) {
                throw CharacterError.invalidParams(
                    "\"\(name)\" must be one of \(choices.joined(separator: ", ")), got \"\(RPCError.excerpt(value))\"")
            }
            return (name, value)
        }
    }

    /// The filters of a list's params, checked against their kind's fixed values.
    func filters<Params: ListParams>(_ params: Params) throws -> [(String, String)] {
        try filters(params.filterValues, allowed: Params.fixedValues)
    }
}
