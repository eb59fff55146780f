import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit

/// A list answer: the country's records (encoded) and how fresh they are.
struct ListAnswer: Sendable {
    var country: String
    var items: [(name: String, json: Data)]
    var freshness: Freshness
}

/// The UniversityService's rules: upstream first (unless the cached list is younger than the
/// max age), the cache when the upstream fails (`stale`), an error only when nothing is cached.
struct UniversityCatalog: Sendable {
    let database: UniversityDatabase
    let upstream: HipoUpstream
    /// Seconds a cached list is served without asking the upstream (0: always ask).
    let maxAge: Double
    let health: UpstreamHealth
    let flights = SingleFlight<String, Fetched<CachedCountry>>()
    let logger: Logger

    private func isFresh(_ date: Date) -> Bool {
        maxAge > 0 && Date().timeIntervalSince(date) < maxAge
    }

    /// When the service started, for health.
    var started = Date()

    /// `universities.health`, with the world mirror.
    func healthReport() async throws -> ServiceHealth {
        let mirror = try await database.worldMirror()
        return health.report(service: .universities, upstreamURL: upstream.baseURL, started: started, cache: try await database.counts(),
                             mirror: .init(complete: mirror != nil, completedAt: mirror?.completedAt.rfc3339, records: mirror?.universities ?? 0))
    }

    // MARK: The world mirror

    /// `universities.sync`: the whole world list in one request, stored per country in one
    /// transaction, so that every country, and a name search across countries, answers offline.
    func sync(progress: @Sendable (Int, Int, String) async -> Void) async throws -> UniversitySyncResult {
        let started = ContinuousClock.now
        await progress(0, 2, "fetching the world list")
        let world: [University]
        do {
            world = try await health.recording { () async throws(UpstreamError) in try await upstream.world() }
        } catch {
            throw UniversityError.upstreamUnavailable(country: allCountries, error)
        }
        // An empty world list is not an answer: it would replace every country with nothing.
        guard !world.isEmpty else { throw UniversityError.upstreamUnavailable(country: allCountries, .badPayload("an empty world list")) }
        let encoder = JSONCoding.encoder
        var order: [String] = []
        var countries: [String: (country: String, items: [(name: String, json: Data)])] = [:]
        for university in world {
            let key = Self.key(university.country)
            if countries[key] == nil {
                order.append(key)
                countries[key] = (university.country, [])
            }
            countries[key]!.items.append((university.name, try encoder.encode(university)))
        }
        await progress(1, 2, "storing \(world.count) universities of \(order.count) countries")
        try await database.replaceWorld(order.map { (key: $0, country: countries[$0]!.country, items: countries[$0]!.items) }, fetchedAt: Date())
        await progress(2, 2, "stored \(order.count) countries")
        let elapsed = ContinuousClock.now - started
        return UniversitySyncResult(countries: order.count, universities: world.count,
                                    durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }

    /// `universities.list` with a `name` and no `country`: a search across every country of the
    /// world mirror (nil when there is none: the default country answers instead). The mirror
    /// is all there is to search; while the upstream is failing, the answer says so (stale), as
    /// any answer from the cache does then.
    func searchEverywhere(name: String) async throws -> (answer: ListAnswer, total: Int)? {
        guard let mirror = try await database.worldMirror() else { return nil }
        let found = try await database.search(name: name, limit: Self.searchLimit)
        let upstream = health.snapshot
        let freshness = Freshness(source: .cache, stale: upstream.failing, fetchedAt: mirror.completedAt.rfc3339,
                                  upstreamError: upstream.failing ? upstream.lastError : nil)
        return (ListAnswer(country: allCountries, items: found.items, freshness: freshness), found.total)
    }

    /// Universities a search across countries answers with at most (one reply must fit a frame).
    static let searchLimit = 1000

    /// The cache key of a country: trimmed, case folded (the upstream matches case-insensitively).
    static func key(_ country: String) -> String {
        country.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// `universities.list` (and, with `force`, `universities.refresh`).
    func list(country: String, force: Bool) async throws -> ListAnswer {
        let key = Self.key(country)
        let cached = try await database.country(key: key)
        if !force, let cached, isFresh(cached.fetchedAt) {
            return ListAnswer(country: cached.country, items: cached.items,
                              freshness: Freshness(source: .cache, fetchedAt: cached.fetchedAt.rfc3339))
        }
        do {
            let fresh = try await fetch(key: key, country: country, force: force)
            return ListAnswer(country: fresh.value.country, items: fresh.value.items, freshness: fresh.freshness)
        } catch let error as UpstreamError {
            guard let cached else {
                // Not a country of the world mirror: the upstream would answer an empty list.
                if let mirror = try await database.worldMirror() {
                    return ListAnswer(country: country, items: [],
                                      freshness: Freshness(source: .cache, stale: true, fetchedAt: mirror.completedAt.rfc3339,
                                                           upstreamError: error.description))
                }
                throw UniversityError.upstreamUnavailable(country: country, error)
            }
            logger.warning("upstream failed; answering from the cache", metadata: ["country": "\(country)", "error": "\(error)"])
            return ListAnswer(country: cached.country, items: cached.items,
                              freshness: Freshness(source: .cache, stale: true, fetchedAt: cached.fetchedAt.rfc3339,
                                                   upstreamError: error.description))
        }
    }

    /// `universities.get`: from the cache; the country's list is fetched once only if it was
    /// never fetched. Duplicate names: the first in the upstream's order.
    func get(name: String, country: String) async throws -> (json: Data, freshness: Freshness) {
        let key = Self.key(country)
        if let found = try await database.find(key: key, name: name) {
            if let json = found.json {
                return (json, Freshness(source: .cache, fetchedAt: found.fetchedAt.rfc3339))
            }
            throw try await notFound(name: name, key: key, country: country)
        }
        let fetched: Fetched<CachedCountry>
        do {
            fetched = try await fetch(key: key, country: country)
        } catch let error as UpstreamError {
            throw UniversityError.upstreamUnavailable(country: country, error)
        }
        let (fresh, lowered) = (fetched.value, name.lowercased())
        guard let match = fresh.items.first(where: { $0.name.lowercased() == lowered }) else {
            throw UniversityError.notFound(name: name, country: fresh.country,
                                           closest: NameMatcher.closest(to: name, in: fresh.items.map(\.name)),
                                           elsewhere: try await database.countryHolding(name: name))
        }
        return (match.json, fetched.freshness)
    }

    private func notFound(name: String, key: String, country: String) async throws -> UniversityError {
        let cached = try await database.country(key: key)
        return .notFound(name: name, country: cached?.country ?? country,
                         closest: NameMatcher.closest(to: name, in: cached?.items.map(\.name) ?? []),
                         elsewhere: try await database.countryHolding(name: name))
    }

    /// Fetches a country's list and stores it. Identical fetches in flight are made once, and
    /// unless `force` a new one first looks whether an identical fetch that had just ended
    /// stored the list.
    private func fetch(key: String, country: String, force: Bool = false) async throws -> Fetched<CachedCountry> {
        try await flights.run(key, forced: force, reusing: { [self] in
            guard let cached = try await database.country(key: key), isFresh(cached.fetchedAt) else { return nil }
            return Fetched(value: cached, at: cached.fetchedAt, source: .cache)
        }) { [self] in
            let universities = try await health.recording { () async throws(UpstreamError) in
                try await upstream.universities(country: country)
            }
            let fetchedAt = Date()
            let encoder = JSONCoding.encoder
            let items = try universities.map { (name: $0.name, json: try encoder.encode($0)) }
            let name = universities.first?.country ?? country.trimmingCharacters(in: .whitespacesAndNewlines)
            try await database.replace(key: key, country: name, items: items, fetchedAt: fetchedAt)
            return Fetched(value: CachedCountry(country: name, fetchedAt: fetchedAt, items: items), at: fetchedAt)
        }
    }
}
