import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit

/// A list page's answer: records as stored, and how fresh they are.
struct PageAnswer: Sendable {
    var page: Int
    var pages: Int
    var count: Int
    var items: [Data]
    var freshness: Freshness
}

/// One record's answer.
struct RecordAnswer: Sendable {
    var record: StoredRecord
    var freshness: Freshness
}

/// The CharacterService's rules. A cached answer younger than the max age is served without
/// an upstream call; otherwise the upstream is asked first and its answer stored in one
/// transaction; when it fails the cache answers (`stale`), and only with nothing cached is it
/// an error. Identical upstream fetches in flight are made once.
struct CharacterCatalog: Sendable {
    let database: CharacterDatabase
    let upstream: RickAndMortyAPI
    /// Seconds a cached answer is served without asking the upstream.
    let maxAge: Double
    let health: UpstreamHealth
    let logger: Logger
    /// Cached pages of filtered lists kept (least recently used evicted past it).
    var maxFilteredPages: Int = 5000
    let pageFlights = SingleFlight<String, PageAnswer>()
    let recordFlights = SingleFlight<String, Fetched<[Int: StoredRecord]>>()

    /// How stale a page's "last used" time may get before a read refreshes it: eviction
    /// needs only rough recency, and a write per cache hit would slow every hit.
    static let touchInterval: TimeInterval = 60

    private func isFresh(_ date: Date) -> Bool {
        maxAge > 0 && Date().timeIntervalSince(date) < maxAge
    }

    /// When the service started, for health.
    var started = Date()

    /// `characters.health`, with the mirror.
    func healthReport() async throws -> ServiceHealth {
        let mirror = try await database.mirror()
        return health.report(service: .characters, upstreamURL: upstream.baseURL, started: started, cache: try await database.counts(),
                             mirror: .init(complete: mirror != nil, completedAt: mirror?.completedAt.rfc3339,
                                           records: mirror.map { $0.counts.values.reduce(0, +) } ?? 0))
    }

    // MARK: Favorites

    /// Marks character `id` a favorite (it must exist: it is fetched if not cached) or not.
    func setFavorite(id: Int, _ favorite: Bool) async throws {
        if favorite { _ = try await record(.character, id: id) }
        try await database.setFavorite(id: id, favorite, at: Date())
    }

    /// The favorite characters' stored JSON, oldest favorite first.
    func favorites() async throws -> [Data] {
        let ids = try await database.favoriteIDs()
        let records = try await database.records(.character, ids: ids)
        return ids.compactMap { records[$0]?.json }
    }

    // MARK: Lists

    /// A page of a list; `force` asks the upstream even when the cache is fresh; without
    /// `fallback` an upstream failure is an error even when the page is cached.
    func list(_ resource: Resource, page: Int, filters: [(String, String)], force: Bool = false,
              fallback: Bool = true) async throws -> PageAnswer {
        let filterKey = FilterKey.encode(filters)
        let cached = try await cachedPage(resource, filterKey: filterKey, page: page)
        if !force, let cached, isFresh(cached.fetchedAt) {
            return try await withTrueTotals(cached.answer, resource: resource, filters: filters)
        }
        // A fresh complete mirror answers any query locally, as the upstream would.
        let mirror = try await database.mirror()
        if !force, let mirror, isFresh(mirror.completedAt) {
            return try await localAnswer(resource, page: page, filters: filters, mirror: mirror, upstreamError: nil)
        }
        do {
            let answer = try await pageFlights.run("\(resource.rawValue)?\(filterKey)#\(page)", forced: force, reusing: { [self] in
                guard let stored = try await cachedPage(resource, filterKey: filterKey, page: page),
                      isFresh(stored.fetchedAt) else { return nil }
                return stored.answer
            }) { [self] in
                let fetched = try await health.recording { () async throws(UpstreamError) in
                    try await upstream.page(resource, page: page, filters: filters)
                }
                let now = Date()
                // A page past the end is not stored: its answer follows from the list's totals,
                // and storing every page number asked for would let a client grow the cache.
                if !(fetched.records.isEmpty && page > 1) {
                    try await database.store(page: fetched, resource: resource, filterKey: filterKey, number: page, fetchedAt: now,
                                             maxFilteredPages: maxFilteredPages)
                }
                return PageAnswer(page: page, pages: fetched.pages, count: fetched.count, items: fetched.records.map(\.json),
                                  freshness: Freshness(source: .upstream, fetchedAt: now.rfc3339))
            }
            return try await withTrueTotals(answer, resource: resource, filters: filters)
        } catch let error as UpstreamError {
            if fallback, let mirror {
                return try await localAnswer(resource, page: page, filters: filters, mirror: mirror, upstreamError: error)
            }
            guard fallback, var answer = cached?.answer else {
                if fallback, page > 1, let known = try await database.newestPage(resource: resource, filterKey: filterKey), page > known.pages {
                    // Past the end of a list whose size is known: empty, with its totals.
                    return PageAnswer(page: page, pages: known.pages, count: known.count, items: [],
                                      freshness: Freshness(source: .cache, stale: true, fetchedAt: known.fetchedAt.rfc3339,
                                                           upstreamError: error.description))
                }
                throw CharacterError.upstreamUnavailable(what: "\(resource.plural) page \(page)", error)
            }
            answer.freshness = Freshness(source: .cache, stale: true, fetchedAt: answer.freshness.fetchedAt, upstreamError: error.description)
            return try await withTrueTotals(answer, resource: resource, filters: filters)
        }
    }

    /// A page past the end says nothing of the list's size (the API answers 404): give it the
    /// totals of the list's pages before it, every time, however it was answered. When no page
    /// of that list is known yet, page 1 is asked for them.
    private func withTrueTotals(_ answer: PageAnswer, resource: Resource, filters: [(String, String)]) async throws -> PageAnswer {
        guard answer.items.isEmpty, answer.page > 1 else { return answer }
        var answer = answer
        if let known = try await database.newestPage(resource: resource, filterKey: FilterKey.encode(filters)) {
            (answer.pages, answer.count) = (known.pages, known.count)
        } else if let first = try? await list(resource, page: 1, filters: filters) {
            (answer.pages, answer.count) = (first.pages, first.count)
        }
        return answer
    }

    /// Those of `ids` past the end of a fresh complete mirror (which holds every id up to its
    /// count): records that do not exist, known without asking the upstream.
    private func beyondFreshMirror(_ resource: Resource, ids: [Int]) async throws -> [Int] {
        try await beyondMirror(resource, ids: ids, freshOnly: true)
    }

    /// Those of `ids` past the end of a complete mirror, fresh or not: when the upstream cannot
    /// be asked, the mirror is the best knowledge there is, and it says they did not exist.
    func beyondMirror(_ resource: Resource, ids: [Int], freshOnly: Bool = false) async throws -> [Int] {
        guard !ids.isEmpty, let mirror = try await database.mirror(), !freshOnly || isFresh(mirror.completedAt) else { return [] }
        let count = mirror.counts[resource] ?? 0
        return ids.filter { $0 > count }
    }

    /// A page answered from the mirror's records (stale when the upstream was tried and failed).
    private func localAnswer(_ resource: Resource, page: Int, filters: [(String, String)], mirror: MirrorState,
                             upstreamError: UpstreamError?) async throws -> PageAnswer {
        let found = try await database.localPage(resource, filters: filters, page: page, upTo: mirror.counts[resource] ?? 0)
        let records = try await database.records(resource, ids: found.ids)
        return PageAnswer(page: page, pages: (found.count + 19) / 20, count: found.count, items: found.ids.compactMap { records[$0]?.json },
                          freshness: Freshness(source: .cache, stale: upstreamError != nil, fetchedAt: mirror.completedAt.rfc3339,
                                               upstreamError: upstreamError?.description))
    }

    private func cachedPage(_ resource: Resource, filterKey: String, page: Int) async throws -> (answer: PageAnswer, fetchedAt: Date)? {
        guard let stored = try await database.page(resource: resource, filterKey: filterKey, number: page) else { return nil }
        let now = Date()
        if !filterKey.isEmpty, now.timeIntervalSince(stored.usedAt) > Self.touchInterval {
            try await database.touch(resource: resource, filterKey: filterKey, number: page, at: now)
        }
        let records = try await database.records(resource, ids: stored.ids)
        let items = stored.ids.compactMap { records[$0]?.json }
        guard items.count == stored.ids.count else { return nil }
        let answer = PageAnswer(page: page, pages: stored.pages, count: stored.count, items: items,
                                freshness: Freshness(source: .cache, fetchedAt: stored.fetchedAt.rfc3339))
        return (answer, stored.fetchedAt)
    }

    // MARK: Records

    /// One record by id.
    func record(_ resource: Resource, id: Int, force: Bool = false) async throws -> RecordAnswer {
        try await record(resource, id: id, cached: try await database.records(resource, ids: [id])[id], force: force)
    }

    /// One record by id, given what the cache holds for it (read by the caller).
    private func record(_ resource: Resource, id: Int, cached: StoredRecord?, force: Bool = false) async throws -> RecordAnswer {
        if !force, let cached, isFresh(cached.fetchedAt) {
            return RecordAnswer(record: cached, freshness: Freshness(source: .cache, fetchedAt: cached.fetchedAt.rfc3339))
        }
        if !force, cached == nil, try await beyondFreshMirror(resource, ids: [id]) == [id] {
            throw CharacterError.notFound(resource, id: id)
        }
        do {
            let fetched = try await fetchRecords(resource, ids: [id], force: force)
            guard let record = fetched.value[id] else { throw CharacterError.notFound(resource, id: id) }
            return RecordAnswer(record: record, freshness: fetched.freshness)
        } catch let error as UpstreamError {
            guard let cached else {
                if try await beyondMirror(resource, ids: [id]) == [id] { throw CharacterError.notFound(resource, id: id) }
                throw CharacterError.upstreamUnavailable(what: "\(resource.rawValue) \(id)", error)
            }
            return RecordAnswer(record: cached, freshness: Freshness(source: .cache, stale: true, fetchedAt: cached.fetchedAt.rfc3339,
                                                                     upstreamError: error.description))
        }
    }

    /// Records by id: the fresh ones from the cache, the rest in one multi-id upstream call.
    /// `unchecked` holds the ids neither cached nor checked, because the upstream failed
    /// (they may exist: they are not "missing").
    func records(_ resource: Resource, ids: [Int]) async throws -> (records: [Int: StoredRecord], freshness: Freshness, unchecked: Set<Int>) {
        var found = try await database.records(resource, ids: ids)
        // Ids past a fresh complete mirror do not exist: not asked for, and not "unchecked".
        let absent = Set(try await beyondFreshMirror(resource, ids: ids.filter { found[$0] == nil }))
        let needed = ids.filter { !absent.contains($0) && (found[$0].map { !isFresh($0.fetchedAt) } ?? true) }
        let oldest = found.values.map(\.fetchedAt).min()
        guard !needed.isEmpty else {
            return (found, Freshness(source: .cache, fetchedAt: (oldest ?? Date()).rfc3339), [])
        }
        do {
            let fetched = try await fetchRecords(resource, ids: needed)
            found.merge(fetched.value) { $1 }
            return (found, fetched.freshness, [])
        } catch let error as UpstreamError {
            // Past a complete mirror, ids did not exist when it was made: missing, not unchecked.
            let knownAbsent = Set(try await beyondMirror(resource, ids: needed.filter { found[$0] == nil }))
            guard !found.isEmpty || ids.isEmpty || knownAbsent.count == needed.count else {
                throw CharacterError.upstreamUnavailable(what: "\(resource.plural) \(needed.map(String.init).joined(separator: ","))", error)
            }
            let unchecked = Set(needed.filter { found[$0] == nil && !knownAbsent.contains($0) })
            return (found, Freshness(source: .cache, stale: true, fetchedAt: (oldest ?? Date()).rfc3339, upstreamError: error.description),
                    unchecked)
        }
    }

    /// The records of `ids` not cached yet, fetched in one call (the rest are not refetched:
    /// links are resolved from the cache when it has them).
    func resolve(_ resource: Resource, ids: [Int]) async -> (records: [Int: StoredRecord], upstreamError: UpstreamError?) {
        var found = (try? await database.records(resource, ids: ids)) ?? [:]
        let missing = ids.filter { found[$0] == nil }
        guard !missing.isEmpty else { return (found, nil) }
        do {
            found.merge(try await fetchRecords(resource, ids: missing).value) { $1 }
            return (found, nil)
        } catch let error as UpstreamError {
            return (found, error)
        } catch {
            logger.error("resolving links failed", metadata: ["error": "\(error)"])
            return (found, nil)
        }
    }

    /// A character with the summaries of its episodes. When the character is fresh in the
    /// cache with all its episodes, that is one database read and nothing else.
    func characterDetail(id: Int) async throws -> (answer: RecordAnswer, summaries: [Int: EpisodeSummary], upstreamError: UpstreamError?) {
        let cached = try await database.characterWithEpisodeSummaries(id: id)  // read 1
        if let cached, isFresh(cached.record.fetchedAt), cached.record.related.allSatisfy({ cached.summaries[$0] != nil }) {
            let freshness = Freshness(source: .cache, fetchedAt: cached.record.fetchedAt.rfc3339)
            return (RecordAnswer(record: cached.record, freshness: freshness), cached.summaries, nil)
        }
        let answer = try await record(.character, id: id, cached: cached?.record)
        var summaries = cached?.summaries ?? [:]
        // Read 1 looked up the episodes of the cached record; a new record may name others.
        let unchecked = answer.record.related.filter { summaries[$0] == nil && !(cached?.record.related.contains($0) ?? false) }
        if !unchecked.isEmpty, let found = try? await database.episodeSummaries(ids: unchecked) {  // read 2
            summaries.merge(found) { $1 }
        }
        let missing = answer.record.related.filter { summaries[$0] == nil }
        guard !missing.isEmpty else { return (answer, summaries, nil) }
        do {
            // Stored by the fetch (or by an identical one that had just ended): read back as
            // summaries (a third read, on this cold path only). A failed read leaves them out,
            // as read 2 does: the character still answers.
            _ = try await fetchRecords(.episode, ids: missing)
            if let stored = try? await database.episodeSummaries(ids: missing) { summaries.merge(stored) { $1 } }
            return (answer, summaries, nil)
        } catch let error as UpstreamError {
            return (answer, summaries, error)
        }
    }

    /// Fetches records, stores them in one transaction and answers them as stored. Identical
    /// fetches in flight are made once, and unless `force` a new one first looks whether the
    /// records were just stored, fresh, by an identical fetch that had ended.
    private func fetchRecords(_ resource: Resource, ids: [Int], force: Bool = false) async throws -> Fetched<[Int: StoredRecord]> {
        let key = "\(resource.rawValue)/" + ids.map(String.init).joined(separator: ",")
        return try await recordFlights.run(key, forced: force, reusing: { [self] in
            let stored = try await database.records(resource, ids: ids)
            guard stored.count == Set(ids).count, let oldest = stored.values.map(\.fetchedAt).min(), isFresh(oldest) else { return nil }
            return Fetched(value: stored, at: oldest, source: .cache)
        }) { [self] in
            let records = try await health.recording { () async throws(UpstreamError) in try await upstream.records(resource, ids: ids) }
            let now = Date()
            try await database.store(records: records, resource: resource, fetchedAt: now)
            let stored = records.map { ($0.id, StoredRecord(json: $0.json, related: $0.related, fetchedAt: now)) }
            return Fetched(value: Dictionary(stored) { $1 }, at: now)
        }
    }
}
