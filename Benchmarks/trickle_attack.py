#!/usr/bin/env python3
"""Clients that trickle their requests to the HTTP front (HTTPGateway), measured as an attacker
would, each beside a bystander's cached read (attack.py's): the front's CPU seconds (and read
syscalls, /proc/PID/io) over the attack, its RSS before, at its peak and after, its open file
descriptors at their peak, how long the attack ran, how many of the attacker's connections the
front still held at its end, and the bystander's p50/p99/worst meanwhile.

  python3 Benchmarks/trickle_attack.py --bin .build/release [--only 1,2,3,4,5,6] [--body-timeout-ms MS]

1. POST /graphql, a ~200-byte body a byte at a time (every 10 ms; as fast as one process can),
   by 1 and by 100 connections.
2. Bodies of 1 KB, 4 KB and RNM_GRAPHQL_MAX_QUERY_BYTES trickled as fast as possible by 20
   connections: held by MicroCacheHitHandler (awaitingBody); 2L the same bytes in all held 4 KB
   (80 connections) or 16 KB (20) at a time, for CPU per byte against bytes held; and one the
   byte reader passes on, so that Hummingbird reads it (two Accept fields: not a hit it answers).
3. A GET head of 1, 4 and ~15 KB (many fields) trickled as fast as possible by 20 connections;
   3L the same bytes held 4 or 15 KB at a time, also over HTTP/1.0 (NIO's decoder reads it).
4. Slowloris: 1,000 connections, a partial head each, then a byte every 5 s: when the front
   closes them, what it says, whether a new client is answered meanwhile (one every 2 s), its
   open fds each second. 4b the same with a GraphQL POST's head, then its body a byte every 5 s.
5. Attack 1 by 100 connections and slowloris from one address, at the default
   RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT.
6. In scaled time (RNM_HTTP_IDLE_TIMEOUT_MS=1000): what a send every 0.5 s keeps open for 12 s
   (a head; a held body; a body Hummingbird reads; chunked; a body drained after the answer).

CPU and reads are also given net of the bystander's (its rate alone, per front, times the
attack's length). Attacks 1-4 run against a front with RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT raised, standing in
for an attacker with many addresses (every client here is 127.0.0.1). Each attacker is a process
of its own run under `nice -n 5`; the bystander runs in this one."""
import argparse, collections, json, os, select, socket, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack import Bystander, cpu_seconds, post, start_stack  # noqa: E402
from bench import free_port, rss_mb, System  # noqa: E402

MAX_QUERY_BYTES = 16384  # RNM_GRAPHQL_MAX_QUERY_BYTES' default (docs/SETTINGS.md)
MAX_HEADER_BYTES = 16384  # RNM_HTTP_MAX_HEADER_BYTES' default
QUERY = "{ character(id: 1) { name } }"


def graphql_body(size):
    """A valid GraphQL request of exactly `size` bytes (the query padded with spaces)."""
    start, end = '{"query":"' + QUERY, '"}'
    return start + " " * (size - len(start) - len(end)) + end


def graphql_post(size, extra=""):
    body = graphql_body(size)
    head = (f"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head + body, len(head)


def long_get(size, fields=400):
    """GET /api/character/2 with `fields` header fields, ~`size` bytes of head in all."""
    start = "GET /api/character/2 HTTP/1.1\r\nHost: x\r\n"
    each = max(12, (size - len(start) - 2) // fields)
    lines = "".join(f"X-F{i:04d}: {'v' * (each - 12)}\r\n" for i in range(fields))
    return start + lines + "\r\n"


# The attacker: a process of its own (--worker SPEC), one thread, non-blocking sockets.

class Connection:
    def __init__(self, port, nodelay):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1 if nodelay else 0)
        self.sock.connect(("127.0.0.1", port))
        self.sock.setblocking(False)
        self.connected = time.perf_counter()
        self.offset, self.inbox, self.closed, self.said = 0, b"", None, "nothing"


def worker(spec):
    payload = spec["payload"].encode("latin-1")
    cyclic = spec.get("cyclic", "").encode("latin-1")
    prefix, interval, repeat = spec.get("prefix", 0), spec["interval"], spec.get("repeat", False)
    step = spec.get("step", 1)
    connections, refused = [], 0
    for _ in range(spec["connections"]):
        try:
            connections.append(Connection(spec["port"], spec.get("nodelay", True)))
        except OSError:
            refused += 1
    by_fd = {c.sock.fileno(): c for c in connections}
    poller = select.poll()
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    answers, sent, sends = collections.Counter(), 0, 0
    started = time.perf_counter()
    end, due = started + spec["duration"], started

    def sending(c):
        return c.closed is None and (c.offset < len(payload) or cyclic)

    def send_one(c):
        nonlocal sent, sends
        if c.offset < prefix:
            chunk = payload[:prefix]
        elif c.offset < len(payload):
            chunk = payload[c.offset:c.offset + 1]
        else:  # `step` bytes at a time (e.g. a whole chunk of a chunked body)
            at = (c.offset - len(payload)) % len(cyclic)
            chunk = cyclic[at:at + step]
        try:
            n = c.sock.send(chunk)
        except BlockingIOError:
            return
        except OSError:
            c.closed = time.perf_counter()
            return
        c.offset += n
        sent += n
        sends += 1

    def receive(c):
        try:
            data = c.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data, c.said = b"", "reset" if c.said == "nothing" else c.said
        if not data:
            c.closed = time.perf_counter()
            poller.unregister(c.sock.fileno())
            return
        c.inbox += data
        while b"\r\n\r\n" in c.inbox:
            head, rest = c.inbox.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), 0)
            if len(rest) < length:
                break
            c.inbox = rest[length:]
            c.said = lines[0]
            answers[lines[0].split(" ", 2)[1]] += 1
            if repeat:
                c.offset = 0

    while True:
        now = time.perf_counter()
        if now >= end or not any(sending(c) or (c.closed is None and c.offset >= len(payload)
                                                and (repeat or c.said == "nothing")) for c in connections):
            break
        if now >= due:
            for c in connections:
                if sending(c):
                    send_one(c)
            due = now if interval == 0 else due + interval
        wait = 0 if interval == 0 else max(0, min(due, end) - time.perf_counter())
        for fd, _ in poller.poll(wait * 1000):
            receive(by_fd[fd])
    # What the front still holds: a connection it has not closed (a last look at the sockets).
    for fd, _ in poller.poll(100):
        receive(by_fd[fd])
    elapsed = time.perf_counter() - started
    closes = sorted(c.closed - c.connected for c in connections if c.closed is not None)
    said = collections.Counter(c.said for c in connections if c.closed is not None)
    print(json.dumps({
        "elapsed": elapsed, "bytes": sent, "sends": sends, "answers": answers, "refused": refused,
        "open": sum(c.closed is None for c in connections), "closed": len(closes),
        "closedAfter": [closes[0], statistics.median(closes), closes[-1]] if closes else None,
        "said": said}))
    sys.stdout.flush()


def attacker(port, connections, payload, interval, duration, **options):
    """Starts an attacker process; `.result()` waits for its report."""
    spec = dict(port=port, connections=connections, payload=payload, interval=interval, duration=duration, **options)
    process = subprocess.Popen(["nice", "-n", "5", sys.executable, os.path.abspath(__file__), "--worker",
                                json.dumps(spec)], stdout=subprocess.PIPE, text=True)

    def result():
        line = process.stdout.readline()
        process.wait(30)
        return json.loads(line)
    process.result = result
    return process


# The measurement, in this process.

def reads(pid):
    with open(f"/proc/{pid}/io") as f:
        return int(next(line for line in f if line.startswith("syscr:")).split()[1])


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Front:
    def __init__(self, name, process, port):
        self.name, self.process, self.port, self.pid = name, process, port, process.pid
        self.bystander = None

    def watch(self):
        """Starts its bystander, and measures it alone: the front's CPU and reads per second
        that are the bystander's, taken off each attack's figures."""
        self.bystander = Bystander(port=self.port)
        self.bystander.start()
        time.sleep(1)
        self.base = dict(cpu=0, reads=0)
        alone = measure(f"alone (the bystander's reference; front: {self.name})", self, lambda: time.sleep(5) or {})
        self.base = dict(cpu=alone["cpu"] / alone["took"], reads=alone["reads"] / alone["took"])

    def unwatch(self):
        self.bystander.running = False
        self.bystander.join(35)


def start_front(system, name, **settings):
    port = free_port()
    process = subprocess.Popen([os.path.join(system.bin, "HTTPGateway")],
                               env=dict(system.env, RNM_HTTP_ADDRESS=f"127.0.0.1:{port}", **settings),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1500):
        try:
            post(port, "{ __typename }")
            return Front(name, process, port)
        except OSError:
            time.sleep(0.02)
    process.kill()
    raise SystemExit(f"the HTTPGateway {name} did not answer within 30 s")


ROWS = []


def measure(name, front, attack, sample=None):
    """Runs `attack()` (which returns the attacker's report) beside the front's bystander."""
    pid = front.pid
    before = dict(cpu=cpu_seconds(pid), reads=reads(pid), rss=rss_mb(pid), fds=fds(pid))
    peak = dict(rss=before["rss"], fds=before["fds"])
    done = threading.Event()
    timeline = []

    def watch():
        while not done.is_set():
            peak["rss"], peak["fds"] = max(peak["rss"], rss_mb(pid)), max(peak["fds"], fds(pid))
            if sample:
                sample(timeline)
            time.sleep(0.05)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    report = attack()
    end = time.perf_counter()
    cpu, read_calls = cpu_seconds(pid) - before["cpu"], reads(pid) - before["reads"]
    done.set()
    watcher.join()
    time.sleep(1)
    row = dict(attack=name, front=front.name, cpu=cpu, reads=read_calls, rssBefore=before["rss"], rssPeak=peak["rss"],
               rssAfter=rss_mb(pid), fdsBefore=before["fds"], fdsPeak=peak["fds"], fdsAfter=fds(pid),
               took=end - start, bystander=front.bystander.window(start, end), report=report, timeline=timeline)
    # The attack's share: the bystander's, as measured alone, taken off.
    row["netCPU"] = max(0.0, cpu - front.base["cpu"] * row["took"])
    row["netReads"] = max(0, round(read_calls - front.base["reads"] * row["took"]))
    if report and report.get("bytes"):
        row["usPerByte"] = row["netCPU"] / report["bytes"] * 1e6
        row["usPerRead"] = row["netCPU"] / max(1, row["netReads"]) * 1e6
    ROWS.append(row)
    print(json.dumps({k: v for k, v in row.items() if k != "timeline"}), file=sys.stderr, flush=True)
    return row


def warm(port, payload):
    """Sends `payload` whole, twice, so that its answer is in the micro-cache; the last status."""
    for _ in range(2):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(payload.encode("latin-1"))
            status = s.recv(65536).split(b" ", 2)[1].decode()
    return status


def hits(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        text = b""
        while chunk := s.recv(65536):
            text += chunk
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.decode().splitlines()
               if line.startswith("rnm_http_cache_hits_total"))


def trickle(front, name, connections, payload, interval, duration, sample=None, **options):
    return measure(name, front, lambda: attacker(front.port, connections, payload, interval, duration,
                                                 **options).result(), sample=sample)


def attacks_1(front):
    small, head = graphql_post(200)
    print(f"warm: HTTP {warm(front.port, small)}", file=sys.stderr)
    for count in (1, 100):
        trickle(front, f"1. POST /graphql, 200-byte body a byte every 10 ms, {count} conn.", count, small, 0.01, 8,
                prefix=head, repeat=True)
    for count in (1, 100):
        trickle(front, f"1. POST /graphql, 200-byte body a byte per send, fast, {count} conn.", count, small, 0, 6,
                prefix=head, repeat=True)


def attacks_2(front):
    for size in (1024, 4096, MAX_QUERY_BYTES):
        payload, head = graphql_post(size)
        print(f"warm {size}: HTTP {warm(front.port, payload)}", file=sys.stderr)
        before = hits(front.port)
        row = trickle(front, f"2. POST /graphql, {size}-byte body a byte per send, fast, 20 conn. (held)", 20,
                      payload, 0, 60, prefix=head)
        row["hits"] = hits(front.port) - before - 1
    # Linear or not: the same bytes in all, held 4 KB or 16 KB at a time (CPU per byte and per
    # read should be the same if holding more bytes costs nothing per byte).
    for size, count in ((4096, 80), (MAX_QUERY_BYTES, 20)):
        payload, head = graphql_post(size)
        trickle(front, f"2L. POST /graphql, {size}-byte body a byte per send, fast, {count} conn. (held)", count,
                payload, 0, 60, prefix=head)
    # Not answered by the byte reader: its body goes to Hummingbird's side part by part.
    payload, head = graphql_post(4096, extra="Accept: application/json\r\nAccept: application/json\r\n")
    trickle(front, "2. POST /graphql, 4096-byte body a byte per send, fast, 20 conn. (to Hummingbird)", 20,
            payload, 0, 60, prefix=head)


def attacks_3(front):
    for size in (1024, 4096, MAX_HEADER_BYTES - 400):
        payload = long_get(size, fields=min(400, size // 40))
        print(f"head {len(payload)} bytes: HTTP {warm(front.port, payload)}", file=sys.stderr)
        trickle(front, f"3. GET head of {len(payload)} bytes ({min(400, size // 40)} fields) a byte per send, "
                "fast, 20 conn.", 20, payload, 0, 60)
    for size, count in ((4096, 80), (MAX_HEADER_BYTES - 400, 20)):
        payload = long_get(size, fields=size // 40)
        trickle(front, f"3L. GET head of {len(payload)} bytes ({size // 40} fields) a byte per send, fast, "
                f"{count} conn.", count, payload, 0, 60)
    # HTTP/1.0: the byte reader passes everything after the request line on, so that NIO's
    # decoder (llhttp) reads the head a byte at a time.
    for size, count in ((4096, 80), (MAX_HEADER_BYTES - 400, 20)):
        payload = long_get(size, fields=size // 40).replace("HTTP/1.1", "HTTP/1.0", 1)
        print(f"head {len(payload)} bytes: HTTP {warm(front.port, payload)}", file=sys.stderr)
        trickle(front, f"3L. HTTP/1.0 GET head of {len(payload)} bytes ({size // 40} fields; NIO's decoder) a byte "
                f"per send, fast, {count} conn.", count, payload, 0, 60)
    payload = long_get(8000, fields=90)  # within RawRequestHead.maxHitFields: answered by the byte reader
    print(f"head {len(payload)} bytes: HTTP {warm(front.port, payload)}", file=sys.stderr)
    trickle(front, f"3. GET head of {len(payload)} bytes (90 fields) a byte per send, fast, 20 conn.", 20, payload, 0,
            60)


SLOW_HEAD = "GET /api/character/2 HTTP/1.1\r\nHost: x\r\n"


def attack_4(front, connections=1000, duration=80, label="4. slowloris", body=False):
    probes = []
    stop = threading.Event()

    def probe():  # a new client every 2 s
        while not stop.is_set():
            started = time.perf_counter()
            try:
                with socket.create_connection(("127.0.0.1", front.port), timeout=10) as s:
                    s.sendall(b"GET /api/character/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    status = s.recv(65536).split(b" ", 2)[1].decode()
            except OSError as error:
                status = type(error).__name__
            probes.append((started, status, time.perf_counter() - started))
            stop.wait(2)
    start = time.perf_counter()

    def sample(timeline):
        if not timeline or time.perf_counter() - timeline[-1][0] >= 1:
            timeline.append((time.perf_counter(), fds(front.pid)))
    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    if body:  # a GraphQL POST's head, then its body a byte every 5 s
        payload, head = graphql_post(200)
        row = trickle(front, f"{label}: {connections} conn., a POST's head then a body byte every 5 s", connections,
                      payload, 5, duration, sample=sample, prefix=head)
    else:
        row = trickle(front, f"{label}: {connections} conn., a partial head then a byte every 5 s", connections,
                      SLOW_HEAD, 5, duration, sample=sample, prefix=len(SLOW_HEAD), cyclic="X-Slow: 1\r\n")
    stop.set()
    prober.join()
    row["timeline"] = [(round(t - start, 1), n) for t, n in row["timeline"]]
    row["probes"] = [(round(t - start, 1), status, round(s * 1000, 1)) for t, status, s in probes]
    return row


def attacks_5(front):
    """From one address, at the default per-client cap (64)."""
    small, head = graphql_post(200)
    warm(front.port, small)
    trickle(front, "5. one address: POST body a byte every 10 ms, 100 conn.", 100, small, 0.01, 6, prefix=head,
            repeat=True)
    attack_4(front, connections=1000, duration=12, label="5. one address: slowloris")


def attacks_6(front):
    """Scaled time: the idle timeout 1 s, a byte every 0.5 s for 12 s (12 idle timeouts)."""
    small, head = graphql_post(200)
    warm(front.port, small)
    cases = [
        ("a partial GET head, a byte a send", SLOW_HEAD, len(SLOW_HEAD), "X-Slow: 1\r\n"),
        ("POST /graphql, 200-byte body a byte a send (held by the byte reader)", small, head, ""),
        ("POST /graphql, 200-byte body, two Accept fields (read by Hummingbird)",
         *graphql_post(200, extra="Accept: application/json\r\nAccept: application/json\r\n"), ""),
        ("POST /graphql, chunked, a 1-byte chunk (6 bytes) a send",
         "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
         None, "1\r\n \r\n", 6),
        ("POST /api/character/2, Content-Length 10^17 (answered, then drained)",
         "POST /api/character/2 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000000000\r\n\r\n", None, " "),
    ]
    for name, payload, prefix, cyclic, *step in cases:
        trickle(front, f"6. idle timeout 1 s: {name}, a send every 0.5 s for 12 s, 10 conn.", 10, payload, 0.5, 12,
                prefix=prefix if prefix is not None else len(payload), cyclic=cyclic, step=(step or [1])[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin")
    parser.add_argument("--worker")
    parser.add_argument("--only", default="1,2,3,4,5,6")
    parser.add_argument("--json", help="write every row here")
    parser.add_argument("--body-timeout-ms", help="RNM_HTTP_BODY_TIMEOUT_MS of the fronts of attacks 1-4 and 6 "
                        "(default: the setting's own), to see slow bodies cut in a short run")
    args = parser.parse_args()
    if args.worker:
        return worker(json.loads(args.worker))
    only = set(args.only.split(","))
    system = System(args.bin)
    fronts = []
    try:
        process, port = start_stack(system)
        fronts.append(Front("default", process, port))
        body = {"RNM_HTTP_BODY_TIMEOUT_MS": args.body_timeout_ms} if args.body_timeout_ms else {}
        many = start_front(system, "per-client cap raised", RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT="1000000", **body)
        fronts.append(many)
        many.watch()
        if "1" in only:
            attacks_1(many)
        if "2" in only:
            attacks_2(many)
        if "3" in only:
            attacks_3(many)
        if "4" in only:
            attack_4(many)
            small, _ = graphql_post(200)
            warm(many.port, small)
            attack_4(many, duration=75, label="4b. slow body", body=True)
        many.unwatch()
        if "5" in only:
            fronts[0].watch()
            attacks_5(fronts[0])
            fronts[0].unwatch()
        if "6" in only:
            scaled = start_front(system, "idle timeout 1 s", RNM_HTTP_IDLE_TIMEOUT_MS="1000", **body)
            fronts.append(scaled)
            scaled.watch()
            attacks_6(scaled)
            scaled.unwatch()
    finally:
        for front in fronts:
            front.process.terminate()
            front.process.wait(10)
        system.close()
        if args.json:
            with open(args.json, "w") as f:
                json.dump(ROWS, f, indent=1)
        print_table()


def print_table():
    print("| attack | front CPU (net of the bystander's) | front reads (net) | µs/byte, µs/read | "
          "RSS before → peak → after | fds peak | took | attacker: bytes, answers | held at end | "
          "closed after (min/med/max) | bystander's cached GET |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in ROWS:
        r = row["report"] or {}
        closed = r.get("closedAfter")
        per = f"{row['usPerByte']:.1f}, {row['usPerRead']:.1f}" if "usPerByte" in row else ""
        said = f" s ({r['closed']} closed; last said {dict(r['said'])})" if closed else ""
        print(f"| {row['attack']} | {row['cpu']:.2f} s ({row['netCPU']:.2f} s) | {row['reads']} ({row['netReads']}) | "
              f"{per} | {row['rssBefore']:.0f} → {row['rssPeak']:.0f} → {row['rssAfter']:.0f} MB | {row['fdsPeak']} | "
              f"{row['took']:.1f} s | {r.get('bytes', '')}, {dict(r.get('answers', {}))} | {r.get('open', '')} | "
              + ("/".join(f"{x:.1f}" for x in closed) + said if closed else "") + f" | {row['bystander']} |")
    for row in ROWS:
        if "probes" in row:
            statuses = collections.Counter(status for _, status, _ in row["probes"])
            worst = max((ms for _, _, ms in row["probes"]), default=0)
            print(f"\n{row['attack']}: a new client every 2 s: {dict(statuses)}, worst {worst} ms; "
                  f"the front's open fds (s since start, fds): {row['timeline'][::5]}")


if __name__ == "__main__":
    main()
