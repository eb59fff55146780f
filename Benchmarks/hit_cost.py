#!/usr/bin/env python3
"""Where a cached hit's time goes, the HTTP front beside nginx `proxy_cache` (issue 40: "say in
BENCHMARKS.md where the time goes, side by side with nginx's").

Both serve `GET /api/character/1` from memory (the front's micro-cache, nginx's proxy_cache in
front of the same test upstream; nginx with as many workers as the front has event loops) to
wrk at 32 connections. For each, in alternating rounds:
- requests/s, and the CPU each request cost the server, user and kernel apart (utime and stime of
  /proc/PID/stat over the run, nginx's workers summed);
- syscalls per request (`strace -c -f` over a shorter run: strace slows the server, the counts
  per request stay what they are);
and for the front, `perf record -g` over one run, each sample put in the first layer its stack
names from the leaf up (kernel, the response's encoding, the handlers the response is passed
down, the hit's own work, the request's parsing, NIO's loop).

With `--graphql`, the fronts answer GraphQL's smallest read instead, POSTed as clients send it
(bench.py's `graphql_script`), from the micro-cache; nginx's cached GET stays the reference.

`scripts/hit-cost` builds the release products and runs it.

    Benchmarks/hit_cost.py --bin .build/release [--seconds 5] [--rounds 3] [--before OLD_HTTPGateway] [--top N]
        [--graphql]"""
import argparse, collections, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack import start_stack  # noqa: E402
from bench import System, graphql_script, wrk  # noqa: E402
from load import children, event_loops, start_front, start_nginx  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")

# The front's layers, matched from a sample's leaf frame up: the first that names one wins.
LAYERS = [
    ("the response encoded (NIOHTTPTypes' codec, NIO's HTTPResponseEncoder)",
     ("HTTPResponseEncoder", "HTTPToHTTPServerCodec")),
    ("the response passed down the handlers (Hummingbird's connection state, rnm's keep-alive, "
     "parse-error and connection-limit handlers, NIO's contexts)",
     ("HTTPConnectionStateHandler", "KeepAliveHandler", "ParseErrorBodyHandler", "ConnectionLimitHandler",
      "ChannelHandlerContextC5write", "invokeWrite", "invokeFlush")),
    ("the hit's own work (lookup, headers, trace id, metrics)",
     ("MicroCacheFastPathC6answer", "MicroCacheHitHandlerC6answer")),
    ("the head encoded (MicroCacheHitHandler.head)", ("MicroCacheHitHandlerC4head",)),
    ("the request read from its bytes (RawRequestHead)", ("RawRequestHead", "MicroCacheHitHandler")),
    ("the request parsed (llhttp, HTTPDecoder) and passed up the handlers",
     ("llhttp", "HTTPDecoder", "ByteToMessage", "invokeChannelRead", "channelRead")),
]
# A sample none of the layers names (from its leaf up): NIO's loop when a NIOPosix frame holds it.
LOOP = ("NIO's event loop and socket bookkeeping (reads, writes, selector)", ("NIOPosix",))


def cpu_split(pids):
    """(user, system) CPU seconds of `pids` so far."""
    user = system = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            user += int(fields[11]) / TICK
            system += int(fields[12]) / TICK
        except OSError:
            pass
    return user, system


def measured_run(url, pids, seconds, script=None):
    before = cpu_split(pids)
    run = wrk(url, 32, seconds, script)
    after = cpu_split(pids)
    done = run["perSecond"] * max(1, round(seconds))
    return run["perSecond"], (after[0] - before[0]) * 1e6 / done, (after[1] - before[1]) * 1e6 / done


def syscalls(url, pids, seconds, directory, script=None):
    """Syscalls per request by name, under strace -c -f over a wrk run."""
    out = os.path.join(directory, "strace.txt")
    tracers = [subprocess.Popen(["strace", "-c", "-f", "-p", str(pid), "-o", f"{out}.{pid}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pid in pids]
    try:
        subprocess.run(["sleep", "0.5"])
        requests = wrk(url, 32, seconds, script)["perSecond"] * max(1, round(seconds))
    finally:
        for tracer in tracers:
            tracer.send_signal(2)
            tracer.wait(30)
    counts = collections.Counter()
    for pid in pids:
        try:
            lines = open(f"{out}.{pid}").read().splitlines()
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
                counts[parts[-1]] += int(parts[3])
    return {name: count / requests for name, count in counts.most_common() if count / requests >= 0.01}


# Each sample's leaf frame, for --top.
LEAVES = collections.Counter()


def layers(url, pid, seconds, directory, script=None):
    data = os.path.join(directory, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-g", "-F", "999", "-p", str(pid), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["sleep", "0.5"])
    wrk(url, 32, seconds, script)
    perf.send_signal(2)
    perf.wait(30)
    text = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True).stdout
    shares, total = collections.Counter(), 0
    for sample in text.split("\n\n"):
        frames = [line.strip() for line in sample.strip().splitlines()]
        if not frames:
            continue
        total += 1
        LEAVES[frames[0].split(" ", 1)[-1]] += 1
        if "[kernel.kallsyms]" in frames[0]:
            shares["the kernel (read, writev, epoll_wait, TCP)"] += 1
            continue
        name = "other (allocator, reference counting, outside the above)"
        for frame in frames:
            found = next((layer for layer, patterns in LAYERS if any(p in frame for p in patterns)), None)
            if found:
                name = found
                break
        else:
            if any(p in frame for frame in frames for p in LOOP[1]):
                name = LOOP[0]
        shares[name] += 1
    return total, shares


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", metavar="PATH",
                        help="another HTTPGateway binary (an earlier build) measured in the same rounds")
    parser.add_argument("--top", type=int, default=0, help="also list the front's N leaf functions most sampled")
    parser.add_argument("--graphql", action="store_true",
                        help="the fronts answer POST /graphql (GraphQL's smallest read) instead of the GET")
    args = parser.parse_args()
    for tool in ("wrk", "nginx", "strace", "perf"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is needed (apt-get install wrk nginx-light strace linux-perf)")
    system = System(args.bin)
    front = nginx = before = None
    directory = tempfile.mkdtemp(prefix="rnm-hit-")
    try:
        stack, _ = start_stack(system)
        stack.terminate()
        stack.wait(10)
        front, front_url = start_front(system, {})
        loops = event_loops(front.pid)
        nginx, nginx_url = start_nginx(system, loops, [32], 4096)
        # What the fronts are asked, and how (a wrk script for the GraphQL POST); nginx: the GET.
        path, script = ("/graphql", graphql_script(directory)) if args.graphql else ("/api/character/1", None)
        servers = {"HTTPGateway": (front_url + path, lambda: [front.pid], script),
                   "nginx proxy_cache": (nginx_url + "/api/character/1", lambda: children(nginx.pid), None)}
        if args.before:
            before, before_url = start_front(system, {}, binary=args.before)
            servers[f"HTTPGateway before ({args.before})"] = (before_url + path, lambda: [before.pid], script)
        for url, _, script in servers.values():
            # Asked twice first: the first answer is fetched, the second kept.
            for _ in range(2):
                wrk(url, 1, 1, script)
        runs = {name: [] for name in servers}
        for round in range(args.rounds):
            for name in list(servers)[::1 if round % 2 == 0 else -1]:
                url, pids, script = servers[name]
                runs[name].append(measured_run(url, pids(), args.seconds, script))
        asked = "POST /graphql (GraphQL's smallest read)" if args.graphql else "GET /api/character/1"
        print(f"{asked} from memory (nginx: GET /api/character/1), wrk -t1 -c32, {args.rounds} rounds of "
              f"{args.seconds:g} s (medians); nginx with {loops} workers, the front's event loops")
        print("| server | requests/s | ÷ nginx (rounds) | CPU per request | user | kernel | syscalls per request |")
        print("| --- | ---: | --- | ---: | ---: | ---: | --- |")
        for name, (url, pids, script) in servers.items():
            rate = statistics.median(r[0] for r in runs[name])
            ratios = [mine[0] / theirs[0] for mine, theirs in zip(runs[name], runs["nginx proxy_cache"])]
            ratio = f"{statistics.median(ratios):.2f}× ({', '.join(f'{r:.2f}' for r in ratios)})"
            user = statistics.median(r[1] for r in runs[name])
            kernel = statistics.median(r[2] for r in runs[name])
            calls = syscalls(url, pids(), 2, directory, script)
            listed = ", ".join(f"{call} {count:.2f}" for call, count in calls.items())
            print(f"| {name} | {rate:,.0f} | {ratio} | {user + kernel:.1f} µs | {user:.1f} µs | {kernel:.1f} µs "
                  f"| {listed} |")
        total, shares = layers(servers["HTTPGateway"][0], front.pid, args.seconds, directory, servers["HTTPGateway"][2])
        print(f"\nwhere the HTTPGateway's CPU goes per hit ({total} perf samples):")
        print("| layer | share |")
        print("| --- | ---: |")
        for name, count in shares.most_common():
            print(f"| {name} | {100 * count / total:.0f}% |")
        if args.top:
            print(f"\nthe front's {args.top} leaf functions most sampled:")
            for leaf, count in LEAVES.most_common(args.top):
                print(f"{100 * count / total:5.1f}%  {leaf[:150]}")
    finally:
        for process in (front, nginx, before):
            if process:
                process.terminate()
                process.wait(10)
        system.close()


if __name__ == "__main__":
    main()
