import RnmAPI
import Synchronization

/// The records of one kind met at one level of a query. A field of any of them that needs other
/// records (a character's episodes, a location's residents) gets those of all of them in one
/// load (DataLoader-style, one `getMany` per kind per level): the Gateway calls of a query grow
/// with its depth, not its breadth. A page of 20 characters with their episodes' names is two
/// calls: the page, then every episode of the 20 at once.
final class Level: Sendable {
    let context: QueryContext
    /// Per kind, the ids the level's records link to, each once, in the order first met: worked
    /// out when a field first asks for them (a query of scalars alone never does, and working
    /// them out for 9,860 records was a tenth of its CPU).
    private let findLinks: @Sendable () -> [RecordKind: [Int]]
    private let foundLinks = Mutex<[RecordKind: [Int]]?>(nil)
    /// Kinds the level's records link to through more than one field (a character's origin and
    /// location): a load of them may hold records no field of the query asks for.
    private let shared: Set<RecordKind>
    /// Whether every record of the level is one a field of the query asked for (false below a
    /// shared load: its records, and those they link to, may not be).
    private let exact: Bool
    private let loads = Mutex<[RecordKind: Task<any Sendable, any Error>]>([:])

    init<Record: LinkedRecord>(_ records: some Sequence<Record>, exact: Bool = true, context: QueryContext) {
        self.context = context
        self.exact = exact
        shared = Record.sharedKinds
        let records = Array(records)
        findLinks = {
            var links: [RecordKind: [Int]] = [:]
            var seen: [RecordKind: Set<Int>] = [:]
            for record in records {
                for (kind, ids) in record.links {
                    for id in ids where seen[kind, default: []].insert(id).inserted {
                        links[kind, default: []].append(id)
                    }
                }
            }
            return links
        }
    }

    private var links: [RecordKind: [Int]] {
        foundLinks.withLock { found in
            if let found { return found }
            let links = findLinks()
            found = links
            return links
        }
    }

    /// The linked records of `Record`'s kind, by id, loaded once for the whole level (they form
    /// the next level together), and the ids that could not be checked. `counted`: how many of
    /// them the caller has counted already (its own, which the level's ids include). The rest
    /// will be counted as the level's other records ask for them: when they cannot fit in the
    /// record budget, the load is refused before it is asked for.
    func linked<Record: LinkedRecord>(
        _ type: Record.Type, counted: Int
    ) async throws -> (records: [Int: Record], unchecked: Set<Int>, next: Level) {
        let ids = links[Record.kind] ?? []
        let exact = exact && !shared.contains(Record.kind)
        let task = loads.withLock { loads in
            if let task = loads[Record.kind] { return task }
            let task = Task<any Sendable, any Error> { [context] in
                if exact { try context.ensureRoom(for: ids.count - counted) }
                let (records, unchecked) = try await context.records(type, ids)
                return (records, unchecked, Level(ids.compactMap { records[$0] }, exact: exact, context: context))
            }
            loads[Record.kind] = task
            return task
        }
        guard let loaded = try await task.value as? ([Int: Record], Set<Int>, Level) else {
            preconditionFailure("a level's load of \(Record.kind) holds another type")
        }
        return loaded
    }
}

/// A record whose fields name other records by id.
protocol LinkedRecord: KindRecord {
    /// Per kind, the ids of the records it links to.
    var links: [RecordKind: [Int]] { get }
    /// The kinds it links to through more than one field.
    static var sharedKinds: Set<RecordKind> { get }
}

extension LinkedRecord {
    static var sharedKinds: Set<RecordKind> { [] }
}

extension Character: LinkedRecord {
    var links: [RecordKind: [Int]] {
        [.episode: episodeIds, .location: [origin.id, location.id].compactMap { $0 }]
    }
    /// Origin and location: one load of locations for both.
    static var sharedKinds: Set<RecordKind> { [.location] }
}

extension Location: LinkedRecord {
    var links: [RecordKind: [Int]] { [.character: residentIds] }
}

extension Episode: LinkedRecord {
    var links: [RecordKind: [Int]] { [.character: characterIds] }
}
