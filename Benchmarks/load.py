#!/usr/bin/env python3
"""How cost grows with load and with the data (issue 40), for BENCHMARKS.md ("How cost grows").

1. The HTTP front (HTTPGateway) and nginx `proxy_cache` in front of the same test upstream, side
   by side at 1, 32, 256 and 1,024 connections under wrk, on `GET /api/character/1` and on any
   of the characters at random (a wrk Lua script picks the id per request; every one is read
   through both first, so both hold it): requests/s, p99, the ratio within each round, and the
   HTTP front's peak RSS during the runs at each count (VmHWM reset before each run). nginx gets
   as many workers as the front has event loops (its NIO-SGLTN threads, counted). The front's
   connection caps are raised for the run (the output says to what).
2. `characters.sync` through the Gateway against the data set's size: the test upstream's real
   fixture data and its copies (RNM_TEST_UPSTREAM_SCALE), each sync into an empty database: its
   wall time, the CharacterService's CPU and peak RSS (VmHWM reset before), the stand-in
   upstream's CPU, and the database's size; then what grew linearly with the data and what not.

`scripts/load` builds the release products and runs it.

    Benchmarks/load.py --bin .build/release [--seconds 5] [--rounds 3] [--connections 1,32,256,1024]
                       [--scales 1,10] [--sync-runs 3] [--wrk-threads 1] [--only http|sync]
                       [--before OLD_HTTPGateway]"""
import argparse, json, os, resource, signal, sqlite3, statistics, subprocess, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack import cpu_seconds  # noqa: E402
from bench import System, call, free_port, rss_mb, wrk  # noqa: E402
from graphql_cost import status_kb  # noqa: E402

# What a request may wait under 1,024 connections before wrk counts it as a timeout (its default
# is 2 s): long enough that the p99 is measured rather than cut off.
WRK_TIMEOUT = 10


def raise_open_files(connections):
    """The soft limit of open files raised for wrk, nginx and the front (inherited by each):
    every connection is a descriptor in wrk and in the server, and one more upstream in nginx."""
    want = 4 * max(connections) + 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            raise SystemExit(f"ulimit -n: {want} open files needed for {max(connections)} connections, "
                             f"hard limit {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")  # VmHWM back to the current RSS
    except FileNotFoundError:
        pass  # a process that ended meanwhile (nginx's cache loader)


def children(pid):
    """The processes whose parent is `pid` (nginx's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                pass
    return found


def event_loops(pid):
    """The event loops of a Swift NIO process: the threads of NIO's singleton group, which the
    HTTP front serves on (Hummingbird's default, System.coreCount threads)."""
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/comm") as f:
            names.append(f.read().strip())
    return sum(name.startswith("NIO-SGLTN-") for name in names)


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read()


def wait_for(url, deadline=20):
    end = time.perf_counter() + deadline
    while True:
        try:
            return get(url, timeout=1)
        except OSError:
            if time.perf_counter() > end:
                raise
            time.sleep(0.02)


def start_front(system, caps, binary=None):
    """The HTTP front (`binary`, or the system's own build's) in front of the system's Gateway."""
    port = free_port()
    env = dict(system.env, RNM_HTTP_ADDRESS=f"127.0.0.1:{port}", RNM_PUBLIC_URL=f"http://127.0.0.1:{port}", **caps)
    process = subprocess.Popen([binary or os.path.join(system.bin, "HTTPGateway")], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/api/character/1")
    return process, f"http://127.0.0.1:{port}"


def start_nginx(system, workers, connections, open_files):
    """nginx with `workers` workers, proxy_cache in front of the characters' test upstream, as
    bench.py's `http_front` sets it up (its answers kept an hour: none expires during the runs);
    its listen queue as long as the front's."""
    port = free_port()
    upstream = system.env["RNM_RICKANDMORTY_URL"].rsplit("/api", 1)[0]
    config = os.path.join(system.dir, "nginx-load.conf")
    with open(config, "w") as f:
        f.write(f"""user root; worker_processes {workers}; worker_rlimit_nofile {open_files}; daemon off;
pid {system.dir}/nginx-load.pid; error_log {system.dir}/nginx-load-error.log;
events {{ worker_connections {2 * max(connections) + 256}; }}
http {{ access_log off;
  proxy_cache_path {system.dir}/nginx-load-cache levels=1:2 keys_zone=rnmload:10m max_size=100m inactive=1h
    use_temp_path=off;
  server {{ listen 127.0.0.1:{port} backlog=4096; gzip on; gzip_types application/json; gzip_min_length 1024;
    location / {{ proxy_pass {upstream}; proxy_cache rnmload; proxy_cache_valid 200 1h;
      proxy_ignore_headers Cache-Control Expires Set-Cookie; proxy_http_version 1.1; }} }} }}
""")
    process = subprocess.Popen(["nginx", "-c", config, "-p", system.dir],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/api/character/1")
    return process, f"http://127.0.0.1:{port}"


def random_ids_script(directory, count):
    """A wrk script asking for any of characters 1…`count` at random, each request its own id
    (each wrk thread seeded apart)."""
    path = os.path.join(directory, "random-character.lua")
    with open(path, "w") as f:
        f.write(f"""local threads = 0
function setup(thread) threads = threads + 1; thread:set("seed", threads) end
function init(args) math.randomseed(os.time() * 1000 + seed) end
function request() return wrk.format(nil, "/api/character/" .. math.random({count})) end
""")
    return path


def peak_mb(pids):
    """The peak RSS of `pids` summed, those that ended meanwhile left out."""
    total = 0
    for pid in pids:
        try:
            total += status_kb(pid, "VmHWM")
        except FileNotFoundError:
            pass
    return total / 1024


def duration(us):
    return "–" if us != us else f"{us:,.0f} µs" if us < 10_000 else f"{us / 1000:,.1f} ms"


def http_load(system, args):
    open_files = raise_open_files(args.connections)
    system.start("characters", "CharacterService")
    system.start("universities", "UniversityService")
    system.start("gateway", "Gateway", health="gateway.health")
    reply, _ = call(system.socket("gateway"), "characters.sync", {}, timeout=300)
    assert "result" in reply, reply
    count = reply["result"]["characters"]
    # The defaults (4,096 in all, 64 from one address) would refuse wrk's connections past 64:
    # every one comes from 127.0.0.1.
    cap = max(4096, 2 * max(args.connections))
    caps = {"RNM_HTTP_MAX_CONNECTIONS": str(cap), "RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT": str(cap)}
    front, front_url = start_front(system, caps)
    nginx = before = None
    if args.before:
        before, before_url = start_front(system, caps, binary=args.before)
    try:
        loops = event_loops(front.pid)
        if loops == 0:
            loops = os.cpu_count()
            print(f"(no NIO-SGLTN thread found in the HTTPGateway: nginx gets {loops} workers, the cores)",
                  file=sys.stderr)
        nginx, nginx_url = start_nginx(system, loops, args.connections, open_files)
        # Every character read once through each: both hold all of them before the runs.
        for id in range(1, count + 1):
            get(f"{front_url}/api/character/{id}")
            get(f"{nginx_url}/api/character/{id}")
            if before:
                get(f"{before_url}/api/character/{id}")
        script = random_ids_script(system.dir, count)
        works = [("`GET /api/character/1`", "/api/character/1", None),
                 (f"any of the {count} characters at random", "/", script)]
        start_rss = rss_mb(front.pid)
        runs = {}  # (work, connections, server) → [wrk result with peakMB]
        for round in range(args.rounds):
            for connections in args.connections:
                for work, path, lua in works:
                    # The order alternates by round: neither server always runs on a warmer machine.
                    # nginx's processes looked up each time: its cache loader ends a minute in.
                    servers = [("front", front_url, [front.pid]),
                               ("nginx", nginx_url, [nginx.pid] + children(nginx.pid))]
                    if before:
                        servers.append(("before", before_url, [before.pid]))
                    for server, base, pids in servers if round % 2 == 0 else reversed(servers):
                        for pid in pids:
                            reset_peak(pid)
                        result = wrk(base + path, connections, args.seconds, lua, threads=args.wrk_threads,
                                     timeout=WRK_TIMEOUT)
                        result["peakMB"] = peak_mb(pids)
                        runs.setdefault((work, connections, server), []).append(result)
        after_rss = rss_mb(front.pid)
        time.sleep(5)  # past the front's idle trim (2 s without a request, checked every 2 s)
        quiet_rss = rss_mb(front.pid)
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait(10)
        if before:
            before.send_signal(signal.SIGTERM)
            before.wait(10)
        front.send_signal(signal.SIGTERM)
        front.wait(10)

    print(f"\n## The HTTP front and nginx proxy_cache against connections\n\n{time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} cores, release build, {args.seconds:g} s per run, {args.rounds} rounds (the order of the "
          f"two servers alternating), medians; wrk -t{args.wrk_threads} --timeout {WRK_TIMEOUT}s; the HTTP front's "
          f"{loops} event loops, nginx {nginx_version()} with {loops} workers and proxy_cache in front of the same "
          f"test upstream; HTTPGateway run with RNM_HTTP_MAX_CONNECTIONS={cap} "
          f"RNM_HTTP_MAX_CONNECTIONS_PER_CLIENT={cap} "
          f"(defaults 4096 and 64); open files {open_files}.\n")
    print("| work | connections | HTTP front req/s | nginx req/s | ratio (rounds) | HTTP front p99 | nginx p99 "
          "| HTTP front peak RSS | nginx peak RSS (its processes summed) | errors (front / nginx) |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for work, _, _ in works:
        for connections in args.connections:
            f, n = runs[(work, connections, "front")], runs[(work, connections, "nginx")]
            ratios = [a["perSecond"] / b["perSecond"] for a, b in zip(f, n)]
            med = lambda results, key: statistics.median(r[key] for r in results)
            errors = lambda results: sum(r["socketErrors"] + r["non2xx"] for r in results)
            print(f"| {work} | {connections:,} | {med(f, 'perSecond'):,.0f} | {med(n, 'perSecond'):,.0f} "
                  f"| {statistics.median(ratios):.2f}× ({', '.join(f'{r:.2f}' for r in ratios)}) "
                  f"| {duration(med(f, 'p99Us'))} | {duration(med(n, 'p99Us'))} | {med(f, 'peakMB'):.1f} MB "
                  f"| {med(n, 'peakMB'):.1f} MB | {errors(f)} / {errors(n)} |")
    if before:
        print(f"\nThe same runs with the HTTP front of `{args.before}` (an earlier build), in the same rounds:\n")
        print("| work | connections | earlier front req/s | its ratio to nginx (rounds) | p99 | now ÷ earlier |")
        print("| --- | ---: | ---: | --- | ---: | ---: |")
        for work, _, _ in works:
            for connections in args.connections:
                b, n, f = (runs[(work, connections, server)] for server in ("before", "nginx", "front"))
                ratios = [x["perSecond"] / y["perSecond"] for x, y in zip(b, n)]
                gains = [x["perSecond"] / y["perSecond"] for x, y in zip(f, b)]
                print(f"| {work} | {connections:,} | {statistics.median(r['perSecond'] for r in b):,.0f} "
                      f"| {statistics.median(ratios):.2f}× ({', '.join(f'{r:.2f}' for r in ratios)}) "
                      f"| {duration(statistics.median(r['p99Us'] for r in b))} | {statistics.median(gains):.2f}× |")
    print(f"\nHTTP front RSS: {start_rss:.1f} MB before the runs (synced, every character read once), "
          f"{after_rss:.1f} MB right after, {quiet_rss:.1f} MB after 5 s quiet.")


def nginx_version():
    out = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
    return (out.stderr or out.stdout).strip().rsplit("/", 1)[-1]


def file_size(path):
    return sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix))


def sync_once(binaries, scale):
    """One characters.sync through the Gateway into an empty database, from a test upstream
    serving the data `scale` times over."""
    os.environ["RNM_TEST_UPSTREAM_SCALE"] = str(scale)  # inherited by the upstreams System starts
    try:
        system = System(binaries)
    finally:
        del os.environ["RNM_TEST_UPSTREAM_SCALE"]
    try:
        system.start("characters", "CharacterService")
        system.start("universities", "UniversityService")
        system.start("gateway", "Gateway", health="gateway.health")
        service, upstream = system.processes["characters"].pid, system.upstreams[0].pid
        reset_peak(service)
        before_rss, before_cpu, upstream_cpu = status_kb(service, "VmRSS"), cpu_seconds(service), cpu_seconds(upstream)
        started = time.perf_counter()
        reply, _ = call(system.socket("gateway"), "characters.sync", {}, timeout=600)
        took = time.perf_counter() - started
        assert "result" in reply, reply
        time.sleep(0.05)  # the tick counters of the work just done
        result = reply["result"]
        database = system.env["RNM_CHARACTERS_DB"]
        # Closed before the service stops (`with` alone would not close it): the service, the last
        # to close, checkpoints its WAL into the file.
        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            avatars = db.execute("SELECT coalesce(sum(length(bytes)), 0) FROM image").fetchone()[0]
            # Its pages, the WAL's included: the file's size once checkpointed.
            pages = db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]
        finally:
            db.close()
        return {"records": (result["characters"], result["locations"], result["episodes"]),
                "requests": result["requests"], "seconds": took, "cpu": cpu_seconds(service) - before_cpu,
                "upstreamCPU": cpu_seconds(upstream) - upstream_cpu, "peakMB": status_kb(service, "VmHWM") / 1024,
                "aboveMB": (status_kb(service, "VmHWM") - before_rss) / 1024,
                "databaseMB": pages / 1024 / 1024, "diskMB": file_size(database) / 1024 / 1024,
                "avatarsMB": avatars / 1024 / 1024}
    finally:
        system.close()


def sync_growth(args):
    runs = {scale: [] for scale in args.scales}
    for _ in range(args.sync_runs):
        for scale in args.scales:  # interleaved: drift on the shared machine falls on every size
            runs[scale].append(sync_once(args.bin, scale))
    columns = [("seconds", "sync wall", lambda v: f"{v:.2f} s"),
               ("cpu", "CharacterService CPU", lambda v: f"{v:.2f} s"),
               ("upstreamCPU", "stand-in upstream CPU", lambda v: f"{v:.2f} s"),
               ("peakMB", "CharacterService peak RSS", lambda v: f"{v:.1f} MB"),
               ("aboveMB", "peak above the start", lambda v: f"+{v:.1f} MB"),
               ("databaseMB", "database", lambda v: f"{v:.1f} MB"),
               ("avatarsMB", "of which avatars' bytes", lambda v: f"{v:.1f} MB"),
               ("diskMB", "on disk with the WAL", lambda v: f"{v:.1f} MB")]
    medians = {scale: {key: statistics.median(r[key] for r in results) for key, _, _ in columns}
               for scale, results in runs.items()}
    print(f"\n## characters.sync against the data's size\n\n{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
          f"release build, through the Gateway into an empty database, medians of {args.sync_runs} runs "
          "(the sizes interleaved); the test upstream's fixture data and its copies (RNM_TEST_UPSTREAM_SCALE).\n")
    print("| data | characters / locations / episodes | upstream requests | "
          + " | ".join(title for _, title, _ in columns) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in columns) + " |")
    for scale, results in runs.items():
        records = "{:,} / {:,} / {:,}".format(*results[0]["records"])
        print(f"| ×{scale} | {records} | {results[0]['requests']:,} | "
              + " | ".join(show(medians[scale][key]) for key, _, show in columns) + " |")
    base = min(args.scales)
    for scale in args.scales:
        if scale == base:
            continue
        factor = scale / base
        print(f"\nFrom ×{base} to ×{scale} (the data ×{factor:g}), each figure grew "
              "(1.00 of the data's factor: linear):")
        for key, title, _ in columns:
            grown = medians[scale][key] / medians[base][key] if medians[base][key] else float("nan")
            share = grown / factor
            verdict = "linear" if 0.8 <= share <= 1.25 else "less than linear" if share < 0.8 else "more than linear"
            print(f"- {title}: ×{grown:.2f} ({share:.2f} of ×{factor:g}, {verdict})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", default="1,32,256,1024",
                        type=lambda text: [int(n) for n in text.split(",")])
    parser.add_argument("--wrk-threads", type=int, default=1,
                        help="wrk's threads (one, as bench.py: on 2 cores a second takes a core from the servers)")
    parser.add_argument("--scales", default="1,10", type=lambda text: [int(n) for n in text.split(",")],
                        help="sizes of the data for the sync, as copies of the fixture data")
    parser.add_argument("--sync-runs", type=int, default=3)
    parser.add_argument("--only", choices=["http", "sync"])
    parser.add_argument("--before", metavar="PATH",
                        help="another HTTPGateway binary (an earlier build) measured in the same rounds")
    args = parser.parse_args()
    if args.only != "sync":
        system = System(args.bin)
        try:
            http_load(system, args)
        finally:
            system.close()
    if args.only != "http":
        sync_growth(args)
    print()


if __name__ == "__main__":
    main()
