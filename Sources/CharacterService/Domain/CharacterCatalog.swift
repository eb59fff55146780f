import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit

/// A list page: its records as stored, and the list's totals.
struct ListPage: Sendable {
    var page: Int
    var pages: Int
    var count: Int
    var items: [Data]
}

/// A list page's answer, with how fresh it is.
typealias PageAnswer = Answer<ListPage>

/// The CharacterService's reads, each described to the one cache rule (``CachePolicy``): what
/// is stored, how to fetch it, and what stands in when the upstream fails (the mirror, then the
/// stored copy). Records, links and details are in `CharacterCatalog+Records.swift`.
struct CharacterCatalog: Sendable {
    let database: CharacterDatabase
    /// User data, apart from the cache (a file of this process's, or a database replicas
    /// share), with its own record of failed writes.
    let favoritesStore: any FavoritesStore
    let favoritesStorage: StorageHealth
    let upstream: RickAndMortyAPI
    /// The cache rule and the upstream's health.
    let policy: CachePolicy
    let logger: Logger
    /// Cached pages of filtered lists kept (least recently used evicted past it).
    let maxFilteredPages: Int
    /// Ids the upstream said do not exist, not asked again while that is fresh.
    let absentIDs: AbsentIDs
    let pageFlights = SingleFlight<ExactText, PageAnswer>()
    let recordFlights = SingleFlight<ExactText, Answer<[Int: StoredRecord]>>()

    /// How stale a page's "last used" time may get before a read refreshes it: eviction
    /// needs only rough recency, and a write per cache hit would slow every hit.
    static let touchInterval: TimeInterval = 60

    /// When the service started, for health.
    var started = Date()

    /// `characters.health`, with the mirror.
    func healthReport() async throws -> ServiceHealth {
        let mirror = try await database.mirror()
        var counts = try await database.counts()
        // Health answers when a shared store does not: its count is left out, its state said.
        counts["favorites"] = await favoritesStore.healthCount(recordingIn: favoritesStorage)
        return policy.health.report(
            service: .characters, upstreamURL: upstream.baseURL, started: started,
            cache: counts,
            mirror: .init(
                complete: mirror != nil, completedAt: mirror?.completedAt.rfc3339,
                records: mirror.map { $0.counts.values.reduce(0, +) } ?? 0),
            storage: StorageHealth.report([policy.storage, favoritesStorage]))
    }

    // MARK: Favorites

    /// Marks character `id` a favorite (it must exist: it is fetched if not cached) or not.
    func setFavorite(id: Int, _ favorite: Bool) async throws {
        if favorite { _ = try await record(.character, id: id) }
        try await favoritesStorage.required("the favorite \(id)") {
            try await favoritesStore.setFavorite(id: id, favorite, at: Date())
        }
    }

    /// The favorite characters' JSON, oldest favorite first: from the cache, the others fetched
    /// (after the cache was rebuilt, favorites are still there); one the upstream cannot give
    /// now is left out. The ids are read from the store every time: with a shared store another
    /// replica may have changed them a moment ago (the records are the upstream's, the same for all).
    func favorites() async throws -> [Data] {
        let ids = try await favoritesStorage.required("the favorites", action: "read") {
            try await favoritesStore.ids()
        }
        let records: [Int: StoredRecord]
        do {
            records = try await self.records(.character, ids: ids).values
        } catch {
            records = try await database.records(.character, ids: ids)
        }
        return ids.compactMap { records[$0]?.json }
    }

    // MARK: Lists

    /// A page of a list; `force` asks the upstream even when the cache is fresh; without
    /// `fallback` (a sync) an upstream failure is an error even when the page is cached.
    func list(
        _ resource: RecordKind, page: Int, filters: [(String, String)], force: Bool = false,
        fallback: Bool = true
    ) async throws -> PageAnswer {
        let filterKey = FilterKey.encode(filters)
        let what = "\(resource.plural) page \(page)"
        let answer = try await policy.read(
            stored: try await storedPage(resource, filterKey: filterKey, page: page), force: force,
            local: { [self] in
                // A fresh complete mirror answers any query locally, as the upstream would.
                guard let mirror = try await database.mirror(), policy.isFresh(mirror.completedAt) else { return nil }
                return try await localAnswer(resource, page: page, filters: filters, mirror: mirror, upstreamError: nil)
            },
            fetch: { try await fetchPage(resource, page: page, filters: filters, filterKey: filterKey, force: force) },
            fallback: { [self] error in
                guard fallback else { throw CharacterError.syncStopped(at: what, error) }
                guard let mirror = try await database.mirror() else { return nil }
                return try await localAnswer(
                    resource, page: page, filters: filters, mirror: mirror, upstreamError: error)
            },
            otherwise: { [self] error in
                // Past the end of a list whose size is known: empty, with its totals.
                if page > 1, let known = try await database.newestPage(resource: resource, filterKey: filterKey),
                    page > known.pages
                {
                    return PageAnswer(
                        ListPage(page: page, pages: known.pages, count: known.count, items: []),
                        .stale(at: known.fetchedAt, because: error))
                }
                throw CharacterError.upstreamUnavailable(what: what, error)
            })
        return try await withTrueTotals(answer, resource: resource, filters: filters)
    }

    /// Fetches a page and stores it, once for identical callers in flight.
    private func fetchPage(
        _ resource: RecordKind, page: Int, filters: [(String, String)], filterKey: String,
        force: Bool
    ) async throws -> PageAnswer {
        try await policy.fetchOnce(
            pageFlights, ExactText("\(resource.rawValue)?\(filterKey)#\(page)"), force: force,
            stored: {
                [self] in try await storedPage(resource, filterKey: filterKey, page: page)
            }
        ) { [self] in
            try await policy.fetchConditionally(
                forced: force,
                validator: { try await database.validator(resource: resource, filterKey: filterKey, page: page) },
                ask: { validator async throws(UpstreamError) in
                    try await upstream.page(resource, page: page, filters: filters, validator: validator)
                },
                renewing: "page \(page) of \(resource.plural)",
                renew: { now in
                    try await database.renew(resource: resource, filterKey: filterKey, page: page, at: now)
                },
                stored: { _ in try await storedPage(resource, filterKey: filterKey, page: page)?.value }
            ) { fetched, received, now in
                // A page past the end is not stored: its answer follows from the list's totals,
                // and storing every page number asked for would let a client grow the cache.
                if !(fetched.records.isEmpty && page > 1) {
                    try await policy.storage.bestEffort("page \(page) of \(resource.plural)") {
                        try await database.store(
                            page: fetched, resource: resource, filterKey: filterKey, number: page,
                            fetchedAt: now, validator: received, maxFilteredPages: maxFilteredPages)
                    }
                }
                return ListPage(
                    page: page, pages: fetched.pages, count: fetched.count, items: fetched.records.map(\.json))
            }
        }
    }

    /// A page past the end says nothing of the list's size (the API answers 404): give it the
    /// totals of the list's pages before it, every time, however it was answered. When no page
    /// of that list is known yet, page 1 is asked for them.
    private func withTrueTotals(
        _ answer: PageAnswer, resource: RecordKind,
        filters: [(String, String)]
    ) async throws -> PageAnswer {
        guard answer.items.isEmpty, answer.page > 1 else { return answer }
        var answer = answer
        if let known = try await database.newestPage(resource: resource, filterKey: FilterKey.encode(filters)) {
            (answer.value.pages, answer.value.count) = (known.pages, known.count)
        } else if let first = try? await list(resource, page: 1, filters: filters) {
            (answer.value.pages, answer.value.count) = (first.pages, first.count)
        }
        return answer
    }

    /// A page answered from the mirror's records (stale when the upstream was tried and failed).
    private func localAnswer(
        _ resource: RecordKind, page: Int, filters: [(String, String)], mirror: MirrorState,
        upstreamError: UpstreamError?
    ) async throws -> PageAnswer {
        let found = try await database.localPage(
            resource, filters: filters, page: page,
            upTo: mirror.counts[resource] ?? 0)
        let records = try await database.records(resource, ids: found.ids)
        let items = found.ids.compactMap { records[$0]?.json }
        return PageAnswer(
            ListPage(page: page, pages: RecordKind.pages(holding: found.count), count: found.count, items: items),
            .cached(at: mirror.completedAt, upstreamError: upstreamError?.description))
    }

    /// The stored page with all its records, if the cache has it (and its "last used" time
    /// refreshed when that is old).
    private func storedPage(_ resource: RecordKind, filterKey: String, page: Int) async throws -> Stored<ListPage>? {
        guard let stored = try await database.page(resource: resource, filterKey: filterKey, number: page) else {
            return nil
        }
        let now = Date()
        if !filterKey.isEmpty, now.timeIntervalSince(stored.usedAt) > Self.touchInterval {
            try await policy.storage.bestEffort("the use of page \(page) of \(resource.plural)") {
                try await database.touch(resource: resource, filterKey: filterKey, number: page, at: now)
            }
        }
        let records = try await database.records(resource, ids: stored.ids)
        let items = stored.ids.compactMap { records[$0]?.json }
        guard items.count == stored.ids.count else { return nil }
        return Stored(
            ListPage(page: page, pages: stored.pages, count: stored.count, items: items),
            fetchedAt: stored.fetchedAt)
    }
}
