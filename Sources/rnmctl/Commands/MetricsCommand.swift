import ArgumentParser
import Messaging
import RnmAPI
import ServiceRuntime

/// `rnmctl metrics`: every process's metrics, as `GET /metrics` serves them, without HTTP.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the metrics of the Gateway and both services in Prometheus's text format.",
        discussion: """
            The same text as the HTTP front's GET /metrics, without the HTTP front's own series. A service \
            that is down shows as rnm_up{process="…"} 0.

            \(Help.examples("rnmctl metrics", "rnmctl metrics | grep rnm_cache_answers_total"))
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.runReporting {
            let text = try await global.withGateway { client in
                await MetricsScrape.collect { try await client.call($0, NoParams(), timeout: global.deadline) }
            }
            if global.json {
                print(String(buffer: try JSONCoding.encode(MetricsReport(exposition: text))))
            } else {
                print(text, terminator: "")
            }
        }
    }
}
