#!/usr/bin/env python3
"""Attacks on the GraphQL answers kept under the request as sent (SentRequestKey, commit 173bf1e),
each beside a bystander's cached read: CPU (utime+stime) and RSS of the HTTPGateway, and the
bystander's p50/p99. Runs against the local test upstreams (bench.py's System).

  python3 Benchmarks/alias_attack.py --bin .build/release [--only NAME ...] [--cache-ms 1000]"""
import argparse, json, os, socket, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import System, rss_mb  # noqa: E402
from attack import Bystander, post, start_stack  # noqa: E402
from attack import measure as attack_measure  # noqa: E402

SMALL = '{"query":"{ character(id: 1) { name } }"}'


def head(body, extra=b""):
    return (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra
            + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")


def read_answers(s, count):
    """Reads `count` answers (Content-Length framed) from `s`; returns their statuses."""
    data, statuses = b"", []
    while len(statuses) < count:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError("closed")
            data += chunk
        top, data = data.split(b"\r\n\r\n", 1)
        lines = top.split(b"\r\n")
        statuses.append(int(lines[0].split()[1]))
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(data) < length:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError("closed")
            data += chunk
        data = data[length:]
    return statuses


def raw_exchange(port, request, pause=None):
    """One request on a new connection (its head and body in two writes `pause` apart when given
    a (head, body) pair); the answer's head fields and body."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if pause is None:
        s.sendall(request)
    else:
        s.sendall(request[0])
        time.sleep(pause)
        s.sendall(request[1])
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    top, rest = data.split(b"\r\n\r\n", 1)
    fields = top.split(b"\r\n")
    length = next((int(f.split(b":")[1]) for f in fields if f.lower().startswith(b"content-length")), 0)
    while len(rest) < length:
        rest += s.recv(65536)
    s.close()
    return fields, rest[:length]


def split_repeats(port, seconds, connections, vary):
    """`connections` clients POSTing the same small GraphQL read (or, with `vary`, each a body of
    its own: whitespace added) as fast as answered, head and body in two writes 1 ms apart: the
    bytes' side misses and Hummingbird's answers it from the micro-cache, aliasing it again."""
    counts = [[] for _ in range(connections)]
    stop = time.perf_counter() + seconds

    def client(i):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n = 0
        while time.perf_counter() < stop:
            body = (SMALL[:-1] + " " * (n % 4000) + "}" if vary else SMALL).encode()
            n += 1
            s.sendall(head(body))
            time.sleep(0.001)
            s.sendall(body)
            assert read_answers(s, 1) == [200]
            counts[i].append(time.perf_counter())
        s.close()
    run_clients(client, connections)
    stamps = sorted(t for c in counts for t in c)
    first = stamps[0]
    per_second = [0] * (int(seconds) + 1)
    for t in stamps:
        per_second[min(len(per_second) - 1, int(t - first))] += 1
    return f"{len(stamps)} answered; per second: {per_second[:-1]}"


def run_clients(client, connections):
    """`client(i)` for each of `connections` clients, on threads of their own, until all end."""
    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def pipelined(port, seconds, connections, one, batch=200):
    """`connections` clients sending the request `one`, `batch` at a time, reading the answers."""
    counts = [0] * connections
    stop = time.perf_counter() + seconds

    def client(i):
        s = socket.create_connection(("127.0.0.1", port))
        while time.perf_counter() < stop:
            s.sendall(one * batch)
            read_answers(s, batch)
            counts[i] += batch
        s.close()
    run_clients(client, connections)
    return f"{sum(counts)} answered ({sum(counts) / seconds:.0f}/s)"


def chunked_repeats(port, seconds, connections):
    """The same small GraphQL read with a chunked body (the whole connection goes on to
    Hummingbird's side), pipelined."""
    body = SMALL.encode()
    return pipelined(port, seconds, connections, b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")


def bytes_hits(port, seconds, connections):
    """The same read pipelined whole (head and body in one write): answered from the bytes."""
    body = SMALL.encode()
    return pipelined(port, seconds, connections, head(body) + body)


def big_query(n, aliases=6):
    return "query($ids: [ID!]!) { " + " ".join(
        f"a{i}_{n}: charactersByIds(ids: $ids) {{ name episode {{ name }} }}" for i in range(aliases)) + " }"


IDS = {"ids": [str(n) for n in range(1, 494)]}


def distinct_big_answers(port, seconds, clients):
    """Distinct large answers (the same records, an alias named differently each time), each read
    twice (the first reads through to the Gateway's cache and may not be kept): each kept and
    aliased, and pushed out of the budget by the next while its alias holds it."""
    sizes, counter, lock = [], [0], threading.Lock()
    stop = time.perf_counter() + seconds

    def client():
        while time.perf_counter() < stop:
            with lock:
                counter[0] += 1
                n = counter[0]
            for _ in range(2):
                status, body = post(port, big_query(n), variables=IDS)
            sizes.append(len(body))
    run_clients(lambda _: client(), clients)
    return f"{len(sizes)} answers of ~{sum(sizes) / max(1, len(sizes)) / 1e6:.2f} MB"


def distinct_large_bodies(port, seconds, clients, size):
    """Bodies of `size` bytes (the query, whitespace after it), each once: every one a miss on
    the bytes' side and an alias of `size` bytes (its key) kept."""
    counter, lock, done = [0], threading.Lock(), [0]
    stop = time.perf_counter() + seconds

    def client():
        s = socket.create_connection(("127.0.0.1", port))
        while time.perf_counter() < stop:
            with lock:
                counter[0] += 1
                n = counter[0]
            prefix = SMALL[:-1]
            pad = size - len(prefix) - 1 - len(str(n)) - 12
            body = (prefix + ',"x":"' + str(n) + '"' + " " * pad + "}").encode()
            s.sendall(head(body) + body)
            read_answers(s, 1)
            done[0] += 1
        s.close()
    run_clients(lambda _: client(), clients)
    return f"{done[0]} bodies of {size} B"


def pipelined_never_reading(port, connections=4, seconds=6.0, body=SMALL):
    """POST hits pipelined, answers never read (receive buffer 4 KiB)."""
    payload = body.encode()
    chunk = (head(payload) + payload) * 500
    sockets = []
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        sockets.append([s, 0])
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for entry in sockets:
            try:
                entry[1] += entry[0].send(chunk)
            except BlockingIOError:
                pass
        time.sleep(0.005)
    written = sum(e[1] for e in sockets) // (len(head(payload)) + len(payload))
    for s, _ in sockets:
        s.close()
    return f"~{written} POSTs written, none read"


def measure(name, pid, bystander, attack, rows):
    """attack.py's measure, each row printed as it comes."""
    attack_measure(name, pid, bystander, attack, rows)
    print(" | ".join(rows[-1]), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--cache-ms", default="1000")
    parser.add_argument("--cache-bytes", default=str(8 << 20))
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    system = System(args.bin)
    http = None
    try:
        http, port = start_stack(
            system, env={"RNM_HTTP_CACHE_MS": args.cache_ms, "RNM_HTTP_CACHE_BYTES": args.cache_bytes})
        pid = http.pid
        for _ in range(3):
            post(port, "{ character(id: 1) { name } }")
        urllib_get = socket.create_connection(("127.0.0.1", port))
        urllib_get.sendall(b"GET /api/character/2 HTTP/1.1\r\nHost: x\r\n\r\n")
        read_answers(urllib_get, 1)
        urllib_get.close()
        bystander = Bystander(port=port)
        bystander.start()
        time.sleep(1)
        rows = []
        want = lambda n: not args.only or n in args.only  # noqa: E731
        measure("alone", pid, bystander, lambda: time.sleep(3) or "nothing", rows)
        if want("bytes"):
            measure("POST hits from the bytes, 4 conns pipelined 200", pid, bystander,
                    lambda: bytes_hits(port, 5, 4), rows)
        if want("split"):
            measure("same POST, head/body split, 4 conns", pid, bystander,
                    lambda: split_repeats(port, 8, 4, vary=False), rows)
            measure("varying POST (whitespace), head/body split, 4 conns", pid, bystander,
                    lambda: split_repeats(port, 8, 4, vary=True), rows)
        if want("chunked"):
            measure("same POST, chunked, 4 conns pipelined 200", pid, bystander,
                    lambda: chunked_repeats(port, 8, 4), rows)
        if want("never"):
            measure("POST hits pipelined, never read, 4 conns", pid, bystander,
                    lambda: pipelined_never_reading(port), rows)
        if want("bodies"):
            measure("distinct 16 KB bodies (aliases), 4 conns", pid, bystander,
                    lambda: distinct_large_bodies(port, 8, 4, 16000), rows)
        if want("big"):
            measure("distinct ~1 MB answers, 2 clients", pid, bystander,
                    lambda: distinct_big_answers(port, 15, 2), rows)
            time.sleep(int(args.cache_ms) / 1000 + 1)
            print(f"RSS {int(args.cache_ms) / 1000 + 1:.0f} s later: {rss_mb(pid):.0f} MB", flush=True)
        bystander.running = False
    finally:
        if http:
            http.terminate()
            http.wait(10)
        system.close()


if __name__ == "__main__":
    main()
