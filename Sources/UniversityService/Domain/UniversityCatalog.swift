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

/// The UniversityService's reads, each described to the one cache rule (``CachePolicy``):
/// upstream first (unless the cached list is younger than the max age, 0 by default), the
/// cache when the upstream fails (`stale`), an error only when nothing is cached.
struct UniversityCatalog: Sendable {
    let database: UniversityDatabase
    let upstream: HipoUpstream
    /// The cache rule and the upstream's health.
    let policy: CachePolicy
    let flights = SingleFlight<ExactText, Answer<CachedCountry>>()
    let searchFlights = SingleFlight<ExactText, Answer<Found>>()
    let logger: Logger

    /// When the service started, for health.
    var started = Date()

    /// `universities.health`, with the world mirror.
    func healthReport() async throws -> ServiceHealth {
        let mirror = try await database.worldMirror()
        return policy.health.report(
            service: .universities, upstreamURL: upstream.baseURL, started: started, cache: try await database.counts(),
            mirror: .init(
                complete: mirror != nil, completedAt: mirror?.completedAt.rfc3339,
                records: mirror?.universities ?? 0),
            storage: policy.storage.report)
    }

    // MARK: The world mirror

    /// `universities.sync`: the whole world list in one request, stored per country in one
    /// transaction, so that every country, and a name search across countries, answers offline.
    func sync(progress: @Sendable (Int, Int, String) async -> Void) async throws -> UniversitySyncResult {
        let started = ContinuousClock.now
        await progress(0, 2, "fetching the world list")
        let asked = Date()
        let world: [University]
        do {
            world = try await policy.upstream(forced: true) { () async throws(UpstreamError) in
                try await upstream.world()
            }
        } catch {
            throw UniversityError.syncStopped(error)
        }
        // An empty world list is not an answer: it would replace every country with nothing.
        guard !world.isEmpty else {
            throw UniversityError.syncStopped(.badPayload("an empty world list"))
        }
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
        try await policy.storage.required("the world list") {
            try await database.replaceWorld(
                order.map { (key: $0, country: countries[$0]!.country, items: countries[$0]!.items) }, fetchedAt: asked)
        }
        await progress(2, 2, "stored \(order.count) countries")
        let elapsed = ContinuousClock.now - started
        return UniversitySyncResult(
            countries: order.count, universities: world.count,
            durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }

    /// `universities.list` with a `name` and no `country`: a search across every country, once
    /// the world mirror exists (nil when there is none: the default country answers instead).
    /// The one cache rule, with the mirror as the stored copy: a mirror within the max age
    /// answers; otherwise the upstream's own search (`/search?name=`); when it fails, the
    /// mirror's matches, stale, with the reason.
    func searchEverywhere(name: String) async throws -> (answer: ListAnswer, total: Int)? {
        guard let mirror = try await database.worldMirror() else { return nil }
        let found = try await database.search(name: name, limit: Self.searchLimit)
        let answer = try await policy.read(
            stored: Stored(Found(items: found.items, total: found.total), fetchedAt: mirror.completedAt),
            fetch: { [self] in
                // Once for identical searches in flight. Its failure is not the upstream's
                // health: a short name's answer is most of the world list, and may miss the
                // ordinary timeout where every country's list would answer (the mirror
                // answers it then, stale).
                try await policy.fetchOnce(searchFlights, ExactText(name.lowercased()), stored: { nil }) {
                    let fetchedAt = Date()
                    let universities = try await upstream.search(name: name)
                    let encoder = JSONCoding.encoder
                    let items = try universities.prefix(Self.searchLimit).map {
                        (name: $0.name, json: try encoder.encode($0))
                    }
                    return Answer(Found(items: items, total: universities.count), .fetched(at: fetchedAt))
                }
            },
            otherwise: { error in throw UniversityError.upstreamUnavailable(country: allCountries, error) })
        return (ListAnswer(country: allCountries, items: answer.items, freshness: answer.freshness), answer.total)
    }

    /// A search's matches (at most ``searchLimit``) and how many there were.
    struct Found: Sendable {
        var items: [(name: String, json: Data)]
        var total: Int
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
        let stored = try await database.country(key: key)
        let answer = try await policy.read(
            stored: stored.map { Stored($0, fetchedAt: $0.fetchedAt) }, force: force,
            fetch: { try await fetch(key: key, country: country, force: force) },
            otherwise: { [self] error in
                // Not a country of the world mirror: the upstream would answer an empty list.
                guard let mirror = try await database.worldMirror() else {
                    throw UniversityError.upstreamUnavailable(country: country, error)
                }
                let empty = CachedCountry(country: country, fetchedAt: mirror.completedAt, items: [])
                return Answer(empty, .stale(at: mirror.completedAt, because: error))
            })
        return ListAnswer(country: answer.country, items: answer.items, freshness: answer.freshness)
    }

    /// `universities.get`: from the cache; the country's list is fetched once only if it was
    /// never fetched. Duplicate names: the first in the upstream's order.
    func get(name: String, country: String) async throws -> (json: Data, freshness: Freshness) {
        let key = Self.key(country)
        if let found = try await database.find(key: key, name: name) {
            if let json = found.json {
                let hit = policy.hit(Stored(json, fetchedAt: found.fetchedAt))
                return (hit.value, hit.freshness)
            }
            throw try await notFound(name: name, key: key, country: country)
        }
        let fetched: Answer<CachedCountry>
        do {
            fetched = try await fetch(key: key, country: country)
        } catch let error as UpstreamError {
            throw UniversityError.upstreamUnavailable(country: country, error)
        }
        let (fresh, lowered) = (fetched.value, name.lowercased())
        guard let match = fresh.items.first(where: { $0.name.lowercased() == lowered }) else {
            throw UniversityError.notFound(
                name: name, country: fresh.country,
                closest: NameMatcher.closest(to: name, in: fresh.items.map(\.name)),
                elsewhere: try await database.countryHolding(name: name))
        }
        let answer = policy.counted(fetched.map { _ in match.json })
        return (answer.value, answer.freshness)
    }

    private func notFound(name: String, key: String, country: String) async throws -> UniversityError {
        let cached = try await database.country(key: key)
        return .notFound(
            name: name, country: cached?.country ?? country,
            closest: NameMatcher.closest(to: name, in: cached?.items.map(\.name) ?? []),
            elsewhere: try await database.countryHolding(name: name))
    }

    /// Fetches a country's list and stores it, once for identical callers in flight.
    private func fetch(key: String, country: String, force: Bool = false) async throws -> Answer<CachedCountry> {
        try await policy.fetchOnce(
            flights, ExactText(key), force: force,
            stored: { [self] in
                try await database.country(key: key).map { Stored($0, fetchedAt: $0.fetchedAt) }
            }
        ) { [self] in
            try await policy.fetchConditionally(
                forced: force, validator: { try await database.validator(key: key) },
                ask: { validator async throws(UpstreamError) in
                    try await upstream.universities(country: country, validator: validator)
                },
                renewing: "\(country)'s list", renew: { now in try await database.renew(key: key, at: now) },
                stored: { now in
                    guard var renewed = try await database.country(key: key) else { return nil }
                    renewed.fetchedAt = now
                    return renewed
                }
            ) { universities, received, fetchedAt in
                let encoder = JSONCoding.encoder
                let items = try universities.map { (name: $0.name, json: try encoder.encode($0)) }
                let name = universities.first?.country ?? country.trimmingCharacters(in: .whitespacesAndNewlines)
                try await policy.storage.bestEffort("\(name)'s list") {
                    try await database.replace(
                        key: key, country: name, items: items, fetchedAt: fetchedAt, validator: received)
                }
                return CachedCountry(country: name, fetchedAt: fetchedAt, items: items)
            }
        }
    }
}
