import Hummingbird
import Logging
import Messaging
import RnmAPI
import ServiceRuntime

/// `GET /search?country=…&name=…`, answered as the Hipo universities API answers it: the bare
/// array, `name` a case-insensitive part of the name, `country` the whole country name.
struct UniversitySearch: Sendable {
    let reader: GatewayReader
    let logger: Logger

    func search(_ query: PublicQuery) async -> Response {
        let country = query["country"].flatMap { $0.isEmpty ? nil : $0 }
        let name = query["name"].flatMap { $0.isEmpty ? nil : $0 }
        guard country != nil || name != nil else {
            // The real server sends its whole world list (~10,000 records, megabytes) here.
            return PublicResponse.error(
                "give a country, a name, or both (rnm does not send the whole world list in one answer)",
                status: .badRequest)
        }
        do {
            let list = try await reader.call(
                RPCMethods.universitiesList, UniversityListParams(country: country, name: name))
            if country == nil, list.country != allCountries {
                return PublicResponse.error(
                    """
                    a search by name across every country needs the universities mirror: run `rnmctl universities \
                    sync` once
                    """,
                    status: .serviceUnavailable, headers: [.retryAfter: "60"])
            }
            return PublicResponse.json(.array(list.items.map(PublicShapes.university)), freshness: list.freshness)
        } catch {
            return PublicResponse.failure(error, logger: logger)
        }
    }
}
