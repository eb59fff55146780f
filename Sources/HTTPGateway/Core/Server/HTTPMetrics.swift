import CoreMetrics
import HTTPTypes
import Hummingbird
import Synchronization
import Telemetry

/// The HTTP front's instruments: per route and status, made as each pair first happens.
final class HTTPMetrics: Sendable {
    private let instruments: Instruments
    private let series = Mutex<[Key: (Counter, Timer)]>([:])
    /// Answers repeated from the micro-cache.
    let cacheHits: Counter

    private struct Key: Hashable {
        var route: String
        var status: Int
    }

    init(instruments: Instruments) {
        self.instruments = instruments
        cacheHits = RnmMetrics.httpCacheHits.counter(in: instruments)
    }

    func answered(route: String, status: Int, after elapsed: Duration) {
        guard instruments.isEnabled else { return }
        let (counter, timer) = series.withLock { series in
            let key = Key(route: route, status: status)
            if let found = series[key] { return found }
            let made = (
                RnmMetrics.httpRequests.counter(route, String(status), in: instruments),
                RnmMetrics.httpRequestDuration.timer(route, in: instruments)
            )
            series[key] = made
            return made
        }
        counter.increment()
        timer.record(elapsed)
    }
}
