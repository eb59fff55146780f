import Foundation
import Messaging
import NIOCore
import RnmAPI
import ServiceKit

/// The `universities.*` methods, wired to the catalog.
enum UniversityRoutes {
    /// How long a `universities.get` answered from the cache is kept in `replyCache`: it reads
    /// no upstream once its country is cached, so only a change to the database (which empties
    /// the reply cache) can change it.
    static let cachedGetValidity: Duration = .seconds(3600)

    static func router(
        catalog: UniversityCatalog, maxParamBytes: Int, replyCache: ExpiringCache<ByteBuffer>? = nil
    ) -> RPCRouter {
        var router = RPCRouter(service: ServiceName.universities, replyCache: replyCache)
        // Every string parameter is bounded: no request makes the service match or store
        // unbounded text.
        @Sendable func bounded(_ field: String, _ value: String?) throws -> String? {
            guard let value, value.utf8.count > maxParamBytes else { return value }
            throw UniversityError.invalidParams(
                "\"\(field)\" is \(value.utf8.count) bytes; the limit is \(maxParamBytes) (RNM_MAX_PARAM_BYTES)")
        }
        router.registerCached(RPCMethods.universitiesList) { params, _ in
            let name = try bounded("name", params.name)?.trimmingCharacters(in: .whitespacesAndNewlines)
            if params.country == nil, let name, !name.isEmpty,
                let everywhere = try await catalog.searchEverywhere(name: name)
            {
                return CacheableResult(
                    json: listResult(everywhere.answer, nameFilter: nil, total: everywhere.total),
                    validUntil: everywhere.answer.freshness.validUntil(maxAge: catalog.policy.maxAge))
            }
            let answer = try await defaulting(params.country) {
                try await catalog.list(country: try country(bounded("country", params.country)), force: false)
            }
            return CacheableResult(
                json: listResult(answer, nameFilter: name),
                validUntil: answer.freshness.validUntil(maxAge: catalog.policy.maxAge))
        }
        let syncs = SharedRun<UniversitySyncResult>()
        router.register(RPCMethods.universitiesSync) { _, context in
            try await syncs.run(
                progress: { done, total, message in await context.progress(done: done, total: total, message: message) }
            ) { progress in try await catalog.sync(progress: progress) }
        }
        router.registerEncoded(RPCMethods.universitiesRefresh) { params, _ in
            let answer = try await defaulting(params.country) {
                try await catalog.list(country: try country(bounded("country", params.country)), force: true)
            }
            return listResult(answer, nameFilter: try bounded("name", params.name))
        }
        router.registerCached(RPCMethods.universitiesGet) { params, _ in
            let name = try bounded("name", params.name)!.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { throw UniversityError.invalidParams("\"name\" must not be empty") }
            let found = try await defaulting(params.country) {
                try await catalog.get(name: name, country: try country(bounded("country", params.country)))
            }
            var writer = JSONObjectWriter(capacity: found.json.count + 128)
            writer.raw("university", found.json)
            writer.freshness(found.freshness)
            let fromCache = found.freshness.source == .cache && !found.freshness.stale
            return CacheableResult(json: writer.finish(), validUntil: fromCache ? .now + cachedGetValidity : nil)
        }
        router.register(RPCMethods.universitiesHealth) { _, _ in
            try await catalog.healthReport()
        }
        return router
    }

    /// `work`, whose failure to reach the upstream says so when the country was not given.
    private static func defaulting<T>(_ given: String?, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch UniversityError.upstreamUnavailable(let country, let error, _) where given == nil {
            throw UniversityError.upstreamUnavailable(country: country, error, defaulted: true)
        }
    }

    /// The country asked for, or the default; an empty one is invalid.
    private static func country(_ value: String?) throws -> String {
        guard let value else { return defaultUniversityCountry }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw UniversityError.invalidParams("\"country\" must not be empty") }
        return trimmed
    }

    /// `{country, count, items, ...freshness}`, records spliced as stored.
    private static func listResult(_ answer: ListAnswer, nameFilter: String?, total: Int? = nil) -> ByteBuffer {
        var items = answer.items
        if let filter = nameFilter?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), !filter.isEmpty {
            items = items.filter { $0.name.lowercased().contains(filter) }
        }
        var writer = JSONObjectWriter(capacity: items.reduce(128) { $0 + $1.json.count + 1 })
        writer.string("country", answer.country)
        writer.integer("count", items.count)
        writer.integer("total", total ?? answer.items.count)
        writer.array("items", items.map(\.json))
        writer.freshness(answer.freshness)
        return writer.finish()
    }
}
