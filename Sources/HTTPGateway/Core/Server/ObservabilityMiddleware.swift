import CoreMetrics
import HTTPTypes
import Hummingbird
import Synchronization
import Telemetry

/// The first thing every HTTP request meets: its trace (the caller's W3C `traceparent`
/// continued, or a new one; sent back on the answer, and carried to the Gateway and the
/// service in each frame, so that one request's log lines can be found in every process), and
/// its metrics (`rnm_http_requests_total` by route and status, its duration).
struct ObservabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HTTPMetrics
    /// Who a request is for, behind a trusted proxy (``TrustedProxies``).
    let proxies: TrustedProxies

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let trace = RequestTrace.continuing(traceparent: request.headers[.traceparent])
        // The route as matched (`/api/character/{id}`), never the path asked: series stay few.
        let route = context.endpointPath ?? "unmatched"
        var response: Response
        do {
            // Who it is for, through every hop (docs/PROTOCOL.md §3): waits for the Gateway link's
            // slots and for the upstream's connections are served in turn between HTTP clients.
            let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
            let client = peer.map { proxies.client(peer: $0, headers: request.headers) }
            response = try await RequestTrace.with(trace.traceID) {
                try await RequestClient.with(client) { try await next(request, context) }
            }
        } catch let error as any HTTPResponseError {
            // Made into its answer here, so that it carries the trace too.
            response = try error.response(from: request, context: context)
        } catch {
            metrics.answered(route: route, status: 500, after: ContinuousClock.now - started)
            throw error
        }
        PublicHeaders.stamp(&response.headers, path: request.uri.path, traceparent: trace.traceparent)
        metrics.answered(route: route, status: response.status.code, after: ContinuousClock.now - started)
        return response
    }
}
