#!/usr/bin/env python3
"""Issue 35's attacks on a release build, each beside a bystander: what one request or one
client costs the HTTPGateway (CPU seconds from /proc/PID/stat, RSS) and what the bystander's
cached read waits meanwhile (p50, p99, worst). `scripts/attack` builds and runs it.

The system is bench.py's (local test upstreams, warm caches); the HTTP front is started here."""
import argparse, http.client, json, os, socket, statistics, struct, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import System, call, free_port, rss_mb  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Bystander(threading.Thread):
    """Reads a cached record again and again, one at a time, on one keep-alive connection (HTTP)
    or a new RPC call each time (wire); keeps (start, seconds) of each read."""

    def __init__(self, port=None, socket_path=None):
        super().__init__(daemon=True)
        self.port, self.socket_path = port, socket_path
        self.samples, self.running = [], True

    def run(self):
        connection = None
        while self.running:
            started = time.perf_counter()
            try:
                if self.port:
                    if connection is None:
                        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                    connection.request("GET", "/api/character/2")
                    connection.getresponse().read()
                else:
                    call(self.socket_path, "characters.get", {"id": 1}, timeout=30)
            except OSError:
                connection = None
            self.samples.append((started, time.perf_counter() - started))
            time.sleep(0.005)

    def window(self, start, end):
        values = sorted(s for t, s in self.samples if start <= t <= end)
        if not values:
            return "no read finished"
        p = lambda q: values[min(len(values) - 1, int(q * len(values)))] * 1000  # noqa: E731
        return f"p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, worst {values[-1] * 1000:.0f} ms ({len(values)} reads)"


def post(port, query, timeout=120, variables=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = {"query": query, **({"variables": variables} if variables else {})}
    connection.request("POST", "/graphql", json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def diamond(levels):
    text = "{ ...B0 }\n"
    for i in range(levels):
        text += f"fragment B{i} on Query {{ ...X{i} ...Y{i} }}\n"
        text += f"fragment X{i} on Query {{ ...B{i + 1} }}\nfragment Y{i} on Query {{ ...B{i + 1} }}\n"
    return text + f"fragment B{levels} on Query {{ __typename }}\n"


WALK = "{ " + " ".join(f"a{i}: __schema {{ types {{ ...W }} }}" for i in range(50)) + \
    " } fragment W on __Type { name fields { name type { name fields { name type { name ofType { name } } } } } }"
ERRORS = "{\n" + "\n".join(f"u{i}" for i in range(2000)) + "\n}"
# The audit's heavy query: 6 aliases of every character with its episodes (the ids as a variable:
# written out they are past RNM_GRAPHQL_MAX_TOKENS).
HEAVY = "query($ids: [ID!]!) { " + " ".join(f"a{i}: charactersByIds(ids: $ids) {{ name episode {{ name }} }}"
                                             for i in range(6)) + " }"
HEAVY_IDS = {"ids": [str(n) for n in range(1, 494)]}


def measure(name, http_pid, bystander, attack, table):
    before_cpu, before_rss = cpu_seconds(http_pid), rss_mb(http_pid)
    peak = [before_rss]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb(http_pid))
            time.sleep(0.05)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    outcome = attack()
    end = time.perf_counter()
    done.set()
    watcher.join()
    time.sleep(0.3)
    table.append((name, outcome, f"{cpu_seconds(http_pid) - before_cpu:.2f} s",
                  f"{before_rss:.0f} → {peak[0]:.0f} MB (+{peak[0] - before_rss:.0f})", f"{end - start:.2f} s",
                  bystander.window(start, end + 0.3)))


def parallel(count, work):
    results = [None] * count

    def run(i):
        results[i] = work()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def pipelining_never_reading(port, connections=4, requests=10000, hold=6.0):
    sockets = []
    request = b"GET /api/character/2 HTTP/1.1\r\nHost: x\r\n\r\n" * 1000
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        sockets.append(s)
    end = time.perf_counter() + hold
    sent = [0] * connections
    while time.perf_counter() < end:
        for i, s in enumerate(sockets):
            if sent[i] < requests:
                try:
                    s.send(request)
                    sent[i] += 1000
                except BlockingIOError:
                    pass
        time.sleep(0.01)
    for s in sockets:
        s.close()
    return f"{sum(sent)} GETs written, none read"


def close_after_hit(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(70)
    started = time.perf_counter()
    s.sendall(b"GET /api/character/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    while s.recv(65536):
        pass
    s.close()
    return f"closed {time.perf_counter() - started:.3f} s after the request"


def wire_flood(socket_path, connections=400, requests=1000, hold=8.0):
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "universities.list",
                        "params": {"country": "Chile"}}).encode()
    chunk = (struct.pack(">I", len(frame)) + frame) * requests
    sockets = []
    for _ in range(connections):
        s = socket.socket(socket.AF_UNIX)
        s.connect(socket_path)
        s.setblocking(False)
        sockets.append([s, 0])
    end = time.perf_counter() + hold
    while time.perf_counter() < end:
        for entry in sockets:
            s, offset = entry
            if offset < len(chunk):
                try:
                    entry[1] += s.send(chunk[offset:offset + 65536])
                except BlockingIOError:
                    pass
        time.sleep(0.01)
    written = sum(entry[1] for entry in sockets) // (len(frame) + 4)
    for s, _ in sockets:
        s.close()
    return f"{written} requests written by {connections} connections, none read"


def start_stack(system, wrapper=(), env=None):
    """The services and the Gateway of `system`, the characters synced, and an HTTPGateway
    (run by `wrapper`, e.g. heaptrack; with `env`'s settings too) answering GraphQL: (its
    process, its port)."""
    system.start("characters", "CharacterService")
    system.start("universities", "UniversityService")
    system.start("gateway", "Gateway", health="gateway.health")
    reply, _ = call(system.socket("gateway"), "characters.sync", {}, timeout=120)
    assert "result" in reply, reply
    port = free_port()
    process = subprocess.Popen(list(wrapper) + [os.path.join(system.bin, "HTTPGateway")],
                               env=dict(system.env, RNM_HTTP_ADDRESS=f"127.0.0.1:{port}", **(env or {})),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(3000):  # 60 s: under heaptrack it starts slowly
        try:
            post(port, "{ __typename }")
            return process, port
        except OSError:
            time.sleep(0.02)
    process.kill()
    raise SystemExit(f"the HTTPGateway did not answer on port {port} within 60 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--only", choices=["http", "wire"], help="the HTTP front's attacks (1-6) or the wire's (7)")
    args = parser.parse_args()
    system = System(args.bin)
    http_process = None
    try:
        http_process, port = start_stack(system)
        call(system.socket("gateway"), "universities.list", {"country": "Chile"}, timeout=30)
        pid = http_process.pid
        table = []
        if args.only != "wire":
            http_attacks(port, pid, table)
        if args.only != "http":
            wire_attacks(system, table)
        print("| attack | outcome | CPU (HTTPGateway; Gateway for 7) | RSS | took | bystander's cached read meanwhile |")
        print("| --- | --- | --- | --- | --- | --- |")
        for row in table:
            print("| " + " | ".join(row) + " |")
    finally:
        if http_process:
            http_process.terminate()
            http_process.wait(10)
        system.close()


def http_attacks(port, pid, table):
    """Findings 1-6, on the HTTP front."""
    bystander = Bystander(port=port)
    bystander.start()
    time.sleep(1)
    measure("alone (the bystander's reference)", pid, bystander, lambda: time.sleep(3) or "nothing", table)
    for levels in (16, 30):
        measure(f"1. diamond, {levels} levels", pid, bystander,
                lambda: "HTTP %d" % post(port, diamond(levels))[0], table)
    measure("1. diamond, 16 levels, 2 at once", pid, bystander,
            lambda: str([r[0] for r in parallel(2, lambda: post(port, diamond(16)))]), table)
    measure("2. introspection walk, 50 aliases", pid, bystander, lambda: "HTTP %d" % post(port, WALK)[0], table)
    measure("2. GraphiQL's introspection query", pid, bystander, lambda: "HTTP %d" % post(
        port, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "introspection.graphql")).read())[0],
        table)
    measure("3. 2,000 unknown fields", pid, bystander, lambda: "HTTP %d" % post(port, ERRORS)[0], table)
    measure("4. 4 connections pipelining hits, never reading", pid, bystander,
            lambda: pipelining_never_reading(port), table)

    def heavy():
        status, body = post(port, HEAVY, variables=HEAVY_IDS)
        answer = json.loads(body)
        records = answer.get("extensions", {}).get("rnm", {}).get("records")
        errors = [e["message"] for e in answer.get("errors", [])][:1]
        return f"HTTP {status}, {records} records" + (f", {errors[0]}" if errors else "")
    measure("5. one heavy query (6 × charactersByIds of 493, episodes' names)", pid, bystander, heavy, table)
    measure("5. 4 heavy queries at once", pid, bystander,
            lambda: str(sorted(p[0] for p in parallel(4, lambda: post(
                port, HEAVY + f" # {time.perf_counter()}", variables=HEAVY_IDS)))), table)
    measure("6. a hit with Connection: close", pid, bystander, lambda: close_after_hit(port), table)
    bystander.running = False


def wire_attacks(system, table):
    """Finding 7, on the Gateway's socket."""
    wire = Bystander(socket_path=system.socket("gateway"))
    wire.start()
    time.sleep(1)
    gateway_pid = system.processes["gateway"].pid
    measure("7. wire: alone (the reference)", gateway_pid, wire, lambda: time.sleep(3) or "nothing", table)
    measure("7. wire flood: 400 connections × 1,000 universities.list", gateway_pid, wire,
            lambda: wire_flood(system.socket("gateway")), table)
    wire.running = False


if __name__ == "__main__":
    main()
