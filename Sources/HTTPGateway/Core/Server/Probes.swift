import HTTPTypes
import Hummingbird
import RnmAPI

/// The answers a load balancer or the kubelet asks for (Kubernetes' own `/livez` and
/// `/readyz`): never kept by any cache, never cross-origin.
struct Probes: Sendable {
    let reader: GatewayReader
    let drain: Drain
    /// How long a probe waits for the Gateway: its health timeout (`RNM_HEALTH_TIMEOUT_MS`, as
    /// long as the Gateway waits for each service) and half a second, so that a service that
    /// does not answer is named in the reason; under the manifests' probe timeout (3 s with the
    /// default, held by scripts/kube-check), so that the kubelet reads it.
    let deadline: Duration

    init(reader: GatewayReader, drain: Drain, healthTimeout: Duration) {
        self.reader = reader
        self.drain = drain
        deadline = healthTimeout + .milliseconds(500)
    }

    /// `GET /livez`: the process answers HTTP. Nothing behind it is asked: a Gateway away must
    /// not have the front restarted (it comes back by itself, ``ServiceLink``).
    func liveness() -> Response {
        answer(.ok, ["status": .string("alive")])
    }

    /// `GET /readyz`: 200 only when the Gateway and both services answer and the front is not
    /// draining; else 503 with `Retry-After` and what is missing. The Gateway shares one probe
    /// of the services among the callers in flight, so a flood of probes costs it one.
    func readiness() async -> Response {
        if drain.isDraining {
            return answer(.serviceUnavailable, ["status": .string("draining")], retry: true)
        }
        let health: GatewayHealth
        do {
            let reader = GatewayReader(gateway: reader.gateway, timeout: deadline, slots: reader.slots)
            health = try await reader.call(RPCMethods.gatewayHealth, NoParams())
        } catch {
            let (message, _, _) = PublicResponse.describe(error)
            return answer(
                .serviceUnavailable, ["status": .string("not ready"), "reason": .string(message)], retry: true)
        }
        let services = health.services.sorted { $0.key < $1.key }
            .map { ($0.key, JSONValue.string($0.value.status)) }
        let down = health.services.filter { $0.value.status != "up" }.keys.sorted()
        guard health.status == "ok", down.isEmpty else {
            let reason = "not answering: " + (down.isEmpty ? "a service" : down.joined(separator: ", "))
            return answer(
                .serviceUnavailable,
                ["status": .string("not ready"), "reason": .string(reason), "services": .object(services)],
                retry: true)
        }
        return answer(.ok, ["status": .string("ready"), "services": .object(services)])
    }

    private func answer(
        _ status: HTTPResponse.Status, _ fields: KeyValuePairs<String, JSONValue>, retry: Bool = false
    )
        -> Response
    {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if retry { headers[.retryAfter] = "1" }
        let body = JSONValue.object(fields.map { ($0.key, $0.value) }).bytes
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
