import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Messaging
import RnmAPI

/// `rnmctl status`: the Gateway, each service, and each service's upstream.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the Gateway and each service are up, and how their upstreams are doing.",
        discussion: "Exits 69 when the Gateway or a service is down; a failing upstream is shown but is not a failure "
            + "(the services answer from their caches).\n\n" + Help.examples("rnmctl status", "rnmctl status --json"))

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.runReporting {
            let (health, json, upstreams) = try await global.withGateway { client in
                let (health, json) = try await client.callReturningJSON(
                    RPCMethods.gatewayHealth, NoParams(), timeout: global.deadline)
                var upstreams: [String: ServiceHealth] = [:]
                for service in [ServiceName.characters, .universities]
                where health.services[service.rawValue]?.status == "up" {
                    if let method = RPCMethods.health(of: service) {
                        upstreams[service.rawValue] = try? await client.call(
                            method, NoParams(), timeout: global.deadline)
                    }
                }
                return (health, json, upstreams)
            }
            if global.json {
                print(String(buffer: json))
            } else {
                print("gateway: up (version \(health.version), up \(Int(health.uptimeSeconds)) s)")
                for (name, state) in health.services.sorted(by: { $0.key < $1.key }) {
                    var line = "\(name): \(state.status)"
                    if let latency = state.latencyMs { line += " (\(Self.tenths(latency)) ms)" }
                    if state.status != "up", let error = state.lastError { line += " — \(error)" }
                    print(line)
                    if let storage = upstreams[name]?.storage,
                        storage.state != "ok" || storage.setAside != nil || storage.standIn != nil
                    {
                        print("  " + Self.describe(storage))
                    }
                    if let upstream = upstreams[name]?.upstream {
                        if upstream.state == "rate-limited", let until = upstream.rateLimitedUntil {
                            print(
                                "  upstream \(upstream.url): rate-limited until \(until) (\(Self.inHowLong(until)))"
                                    + " — \(upstream.lastError ?? "Retry-After"); "
                                    + Self.fallback(upstreams[name]))
                        } else if let since = upstream.failingSince
                            ?? (upstreams[name]?.status == "degraded" ? "" : nil)
                        {
                            var state = "failing" + (since.isEmpty ? "" : " since \(since)")
                            if let failures = upstream.failures { state += ", \(plural(failures, "failure"))" }
                            state +=
                                upstream.nextProbeAt.map { ", next probe \(Self.inHowLong($0))" } ?? ", probing now"
                            print(
                                """
                                  upstream \(upstream.url): \(state) — \(upstream.lastError ?? "unknown error"); \
                                \(Self.fallback(upstreams[name]))
                                """
                            )
                        } else {
                            // No call yet since the service started: nothing is known about it.
                            print(
                                "  upstream \(upstream.url): "
                                    + (upstream.lastSuccessAt.map { "ok (last success \($0))" } ?? "not asked yet"))
                        }
                    }
                }
            }
            if !global.json {
                // The HTTP front is optional: shown, never a failure.
                switch await HTTPFrontProbe.probe(timeout: min(global.deadline, .seconds(2))) {
                case .answered(let status, let milliseconds):
                    print(
                        """
                        http: \(status == 200 ? "up" : "answering \(status)") at \(HTTPFrontProbe.address) \
                        (\(Self.tenths(milliseconds)) ms)
                        """
                    )
                case .unreachable:
                    print(
                        """
                        http: not running at \(HTTPFrontProbe.address) (optional: HTTPGateway serves the public \
                        REST APIs)
                        """
                    )
                }
            }
            let down = health.services.filter { $0.value.status != "up" }.keys.sorted()
            if !down.isEmpty {
                throw CLIFailure.rpc(
                    RPCError(.serviceUnavailable, "\(down.joined(separator: " and ")) down", service: .gateway))
            }
        }
    }

    /// "in 3 s" (or "now") until an RFC 3339 time.
    static func inHowLong(_ time: String) -> String {
        guard let date = Date(rfc3339: time) else { return time }
        let seconds = Int(date.timeIntervalSinceNow.rounded(.up))
        return seconds > 0 ? "in \(seconds) s" : "now"
    }

    /// A service's database, when its writes fail or a damaged file was set aside.
    static func describe(_ storage: ServiceHealth.Storage) -> String {
        var line = "database: " + (storage.state == "full" ? "disk full" : storage.state)
        if let since = storage.failingSince { line += " since \(since)" }
        if let error = storage.lastError { line += " — \(error)" }
        if let path = storage.setAside { line += " (a damaged file was set aside at start: \(path))" }
        return line
    }

    /// What a read gets while the upstream fails: the cache's records, or nothing (a promise of
    /// "the cache" with nothing in it is what a new user without the internet met).
    static func fallback(_ health: ServiceHealth?) -> String {
        let records = health?.cache.values.reduce(0, +) ?? 0
        guard records > 0 else { return "nothing is cached yet, so reads fail until it answers" }
        return "answers come from the cache (\(plural(records, "record")))"
    }

    /// `latency` with one decimal, as `%.1f` would print it (no `String(format:)` without Foundation).
    static func tenths(_ value: Double) -> String {
        let tenths = Int((max(0, value) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
