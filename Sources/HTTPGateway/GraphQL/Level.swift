import RnmAPI
import Synchronization

/// The records of one kind met at one level of a query. A field of any of them that needs other
/// records (a character's episodes, a location's residents) gets those of all of them in one
/// load (DataLoader-style, one `getMany` per kind per level): the Gateway calls of a query grow
/// with its depth, not its breadth. A page of 20 characters with their episodes' names is two
/// calls: the page, then every episode of the 20 at once.
final class Level: Sendable {
    let context: QueryContext
    /// Per kind, the ids the level's records link to, each once, in the order first met.
    private let links: [RecordKind: [Int]]
    /// How many times each record appears in the answer at this level (a record linked by two
    /// parents appears twice): what the record budget counts.
    private let appearances: [Int: Int]
    private let records: [any LinkedRecord]
    private let loads = Mutex<[RecordKind: Task<any Sendable, any Error>]>([:])

    /// `appearances`: per id, how many times the record appears at this level (1 when absent).
    init<Record: LinkedRecord>(_ records: [Record], appearances: [Int: Int] = [:], context: QueryContext) {
        self.context = context
        self.records = records
        self.appearances = appearances
        var links: [RecordKind: [Int]] = [:]
        var seen: [RecordKind: Set<Int>] = [:]
        for record in records {
            for (kind, ids) in record.links {
                for id in ids where seen[kind, default: []].insert(id).inserted { links[kind, default: []].append(id) }
            }
        }
        self.links = links
    }

    /// The linked records of `Record`'s kind, by id, loaded once for the whole level; they form
    /// the next level together.
    func linked<Record: LinkedRecord>(_ type: Record.Type) async throws -> (records: [Int: Record], next: Level) {
        let ids = links[Record.kind] ?? []
        let task = loads.withLock { loads in
            if let task = loads[Record.kind] { return task }
            let task = Task<any Sendable, any Error> { [self] in
                // The answer's cost is what this level's records link to, as often as each
                // appears: a fan-out (characters → episodes → characters …) is stopped here,
                // before its fetch.
                let next = nextAppearances(of: Record.kind)
                try context.reserve(next.values.reduce(0, Self.add))
                let records = try await context.records(type, ids)
                return (records, Level(ids.compactMap { records[$0] }, appearances: next, context: context))
            }
            loads[Record.kind] = task
            return task
        }
        guard let loaded = try await task.value as? ([Int: Record], Level) else {
            preconditionFailure("a level's load of \(Record.kind) holds another type")
        }
        return loaded
    }

    /// Per linked id of `kind`, how many times it will appear in the answer at the next level.
    private func nextAppearances(of kind: RecordKind) -> [Int: Int] {
        var next: [Int: Int] = [:]
        for record in records {
            let times = appearances[record.id] ?? 1
            for id in record.links[kind] ?? [] { next[id] = Self.add(next[id] ?? 0, times) }
        }
        return next
    }

    private static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}

/// A record whose fields name other records by id.
protocol LinkedRecord: KindRecord {
    /// Per kind, the ids of the records it links to.
    var links: [RecordKind: [Int]] { get }
}

extension Character: LinkedRecord {
    var links: [RecordKind: [Int]] {
        [.episode: episodeIds, .location: [origin.id, location.id].compactMap { $0 }]
    }
}

extension Location: LinkedRecord {
    var links: [RecordKind: [Int]] { [.character: residentIds] }
}

extension Episode: LinkedRecord {
    var links: [RecordKind: [Int]] { [.character: characterIds] }
}
