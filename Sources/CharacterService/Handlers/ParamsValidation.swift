import Messaging

/// Checks params and turns them into upstream filters (PROTOCOL.md §6).
enum ParamsValidation {
    static func page(_ page: Int?) throws -> Int {
        let page = page ?? 1
        guard page >= 1 else { throw CharacterError.invalidParams("\"page\" must be 1 or more, got \(page)") }
        return page
    }

    static func id(_ id: Int) throws -> Int {
        guard id >= 1 else { throw CharacterError.invalidParams("\"id\" must be 1 or more, got \(id)") }
        return id
    }

    static func ids(_ ids: [Int]) throws -> [Int] {
        guard (1...100).contains(ids.count) else {
            throw CharacterError.invalidParams("\"ids\" must hold 1 to 100 ids, got \(ids.count)")
        }
        for id in ids { _ = try self.id(id) }
        var seen = Set<Int>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// Filters in the API's order, lowercased (the API matches case-insensitively), empty ones dropped.
    static func filters(_ pairs: [(String, String?)], allowed: [String: [String]] = [:]) throws -> [(String, String)] {
        try pairs.compactMap { name, value in
            guard let value = value?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else { return nil }
            if let choices = allowed[name], !choices.contains(value) {
                throw CharacterError.invalidParams("\"\(name)\" must be one of \(choices.joined(separator: ", ")), got \"\(value)\"")
            }
            return (name, value)
        }
    }

    static func characterFilters(_ params: CharacterListParams) throws -> [(String, String)] {
        try filters([("name", params.name), ("status", params.status), ("species", params.species),
                     ("type", params.type), ("gender", params.gender)],
                    allowed: ["status": CharacterListParams.statuses, "gender": CharacterListParams.genders])
    }
}
