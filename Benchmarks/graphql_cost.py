#!/usr/bin/env python3
"""GraphQL's cost per record in the HTTPGateway (issues 35 and 40): the audit's heavy legal
query (attack.py's HEAVY, 7,770 records) and bench.py's deep query, each a distinct text so
that no answer or document is repeated from a cache: CPU seconds (/proc/PID/stat) and the RSS
peak above the RSS before the query (VmHWM reset through /proc/PID/clear_refs), per record; the
first heavy query in a fresh process apart (later ones reuse what the allocator kept).
`--perf SECONDS`: perf record -g on the HTTPGateway while heavy queries run, the samples sorted
into parts (Gateway decode, execution, Swift tasks, encoding…). `--heaptrack`: one heavy query
in an HTTPGateway run by heaptrack, the heap's peak and who holds it.
`scripts/graphql-cost` builds and runs it.

    Benchmarks/graphql_cost.py --bin .build/release [--runs 5] [--perf SECONDS] [--heaptrack]"""
import argparse, json, os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack import HEAVY, HEAVY_IDS, cpu_seconds, post, start_stack  # noqa: E402
from bench import DEEP_QUERY, System  # noqa: E402

# The widest legal query the new user's trial found (session 16): 20 aliases of the same 493
# characters, every scalar field, 9,860 records (the limit is 10,000).
def widest(aliases):
    return "query($ids: [ID!]!) { " + " ".join(
        f"a{i}: charactersByIds(ids: $ids) {{ __typename id name status species type gender image created }}"
        for i in range(aliases)) + " }"


WIDEST = widest(20)
# The widest whose answer (1.7 MB) the micro-cache keeps with its gzipped copy (0.25 MB; both within
# a quarter of RNM_HTTP_CACHE_BYTES, 8 MiB): it pays for the copy and the tag too. 17 and 18 aliases
# are kept without the copy, having paid for it.
WIDEST_KEPT = widest(16)


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def one_query(port, pid, query, variables=None):
    """(seconds, CPU seconds, peak RSS above the start in KB, answer bytes, records)."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    before_rss, before_cpu = status_kb(pid, "VmRSS"), cpu_seconds(pid)
    started = time.perf_counter()
    status, body = post(port, query, variables=variables)
    took = time.perf_counter() - started
    time.sleep(0.05)  # the tick counters of the work just done
    answer = json.loads(body)
    assert status == 200 and "errors" not in answer, (status, body[:300])
    records = answer.get("extensions", {}).get("rnm", {}).get("records", 0)
    return took, cpu_seconds(pid) - before_cpu, status_kb(pid, "VmHWM") - before_rss, len(body), records


# Where a perf sample's CPU went: the first category whose pattern one of its frames matches.
# Swift's async frames cut stacks at each suspension, so a sample is attributed by the frames
# its own job shows: a decode, an encode, a task's creation, else its innermost library frame.
CATEGORIES = [
    ("gzip of the copy the micro-cache keeps (zlib)", ("libz.so",)),
    ("Gateway replies decoded (JSONDecoder of Fresh<Batch<…>>)", ("10JSONCodingO6decode", "RPCClient")),
    ("answer encoded (Map → JSON → bytes)", ("GraphQLJSONEncoder", "3MapO6encode", "GraphQLResponseBody",
                                            "15GraphQLEndpointV4body")),
    ("results tree → Map (GraphQL map(from:))", ("7GraphQL3map4from",)),
    ("Graphiti: arguments decoded from Map per field", ("MapDecoder",)),
    ("Swift tasks: one per field and list item (create, schedule, free)",
     ("swift_task_create", "swift_taskGroup", "TaskGroup", "swift_task_future", "StatusRecord", "swift_task_dealloc",
      "AsyncTask")),
    ("the GraphQL library (parse, validate; execution of what rnm's executor declines)", ("s7GraphQL",)),
    ("Graphiti resolver glue", ("s8Graphiti",)),
    ("rnm's resolvers and nodes", ("11HTTPGateway",)),
    ("HTTP, NIO and jobs resumed with no library frame on their stack", ("NIO", "Hummingbird")),
]


def breakdown(perf_data):
    """Share of samples per category (perf script of `perf_data`)."""
    text = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip,sym,dso"], capture_output=True, text=True).stdout
    counts, total = {}, 0
    for sample in text.split("\n\n"):
        frames = [line.strip().split(" ", 1)[-1] for line in sample.strip().splitlines()]
        if not frames:
            continue
        total += 1
        name = "other (allocator, retain/release outside the above)"
        for category, patterns in CATEGORIES:
            if any(pattern in frame for frame in frames for pattern in patterns):
                name = category
                break
        counts[name] = counts.get(name, 0) + 1
    return total, sorted(counts.items(), key=lambda item: -item[1])


def heap_peaks(trace):
    """The heap's peak under heaptrack and its largest holders, each by the allocating function."""
    text = subprocess.run(["heaptrack_print", "-f", trace, "--print-peaks", "1", "--print-allocators", "0",
                           "--print-leaks", "0", "--print-temporary", "0", "--peak-limit", "6",
                           "--sub-peak-limit", "0"], capture_output=True, text=True).stdout
    lines = text.splitlines()
    peak = next((line for line in lines if line.startswith("peak heap memory consumption")), "")
    print(f"one heavy query under heaptrack: {peak}")
    print("| held at the peak | by |\n| --- | --- |")
    for index, line in enumerate(lines):
        if " peak memory consumed over " in line and index + 1 < len(lines):
            print(f"| {line.split(' peak')[0]} ({line.split('over ')[1].split(' calls')[0]} allocations) "
                  f"| `{lines[index + 1].strip()[:100]}` |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--perf", type=float, default=0, help="seconds of perf record -g during heavy queries")
    parser.add_argument("--perf-query", choices=("heavy", "widest", "kept"), default="heavy",
                        help="which query runs while perf records")
    parser.add_argument("--heaptrack", action="store_true",
                        help="one heavy query in an HTTPGateway run by heaptrack: its heap's peak and who holds it")
    args = parser.parse_args()
    system = System(args.bin)
    http_process = None
    try:
        traced = os.path.join(system.dir, "heaptrack")
        http_process, port = start_stack(system, ["heaptrack", "-o", traced] if args.heaptrack else [])
        pid = http_process.pid
        if args.heaptrack:
            post(port, HEAVY, variables=HEAVY_IDS, timeout=600)
            http_process.terminate()
            http_process.wait(300)
            http_process = None
            heap_peaks(traced + ".zst")
            return
        # The first heavy query in the fresh process: the RSS it adds is what it held in flight
        # (later ones reuse the memory the allocator kept: their peak hardly moves the RSS).
        first = one_query(port, pid, HEAVY + " # first", HEAVY_IDS)
        post(port, "query Warm " + DEEP_QUERY)
        heavy = [one_query(port, pid, HEAVY + f" # {run} {time.perf_counter()}", HEAVY_IDS) for run in range(args.runs)]
        deep = [one_query(port, pid, f"query Deep{run} {DEEP_QUERY}") for run in range(max(args.runs, 15))]
        widest = [one_query(port, pid, WIDEST + f" # {run} {time.perf_counter()}", HEAVY_IDS) for run in range(args.runs)]
        kept = [one_query(port, pid, WIDEST_KEPT + f" # {run} {time.perf_counter()}", HEAVY_IDS)
                for run in range(args.runs)]
        rows = []
        for name, runs in (("heavy (6 × charactersByIds of 493, episodes' names)", heavy),
                           ("deep (page 1, episodes' characters, residents)", deep),
                           ("widest (20 × charactersByIds of 493, every scalar)", widest),
                           ("widest kept in the micro-cache (16 ×, gzipped and tagged)", kept)):
            took, _, peak, size, records = (statistics.median(r[i] for r in runs) for i in range(5))
            # CPU as the mean: each run's figure moves in the kernel's 10 ms ticks, their sum does not.
            cpu = statistics.fmean(r[1] for r in runs)
            rows.append([name, f"{records:.0f}", f"{size / 1024:.0f} KB", f"{took * 1000:.0f} ms",
                         f"{cpu * 1000:.0f} ms", f"{cpu * 1e6 / records:.0f} µs", f"+{peak / 1024:.1f} MB",
                         f"{peak * 1024 / records / 1024:.1f} KB"])
        print(f"first heavy query in a fresh HTTPGateway: {first[0] * 1000:.0f} ms, CPU {first[1] * 1000:.0f} ms, "
              f"RSS +{first[2] / 1024:.1f} MB ({first[2] * 1024 / first[4] / 1024:.1f} KB per record), "
              f"{first[3] / 1024:.0f} KB answer")
        print(f"medians of {args.runs} heavy, {max(args.runs, 15)} deep and {args.runs} of each widest query, each a "
              "distinct text (CPU: their mean)")
        print("| query | records | answer | took | CPU | CPU per record | peak RSS | peak RSS per record |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        if args.perf:
            out = os.path.join(system.dir, "perf.data")
            perf = subprocess.Popen(["perf", "record", "-g", "-F", "499", "-p", str(pid), "-o", out],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = time.perf_counter() + args.perf
            while time.perf_counter() < end:
                query = {"widest": WIDEST, "kept": WIDEST_KEPT}.get(args.perf_query, HEAVY)
                post(port, query + f" # perf {time.perf_counter()}", variables=HEAVY_IDS)
            perf.send_signal(2)
            perf.wait(30)
            total, counts = breakdown(out)
            print(f"\nwhere the HTTPGateway's CPU went during {args.perf_query} queries ({total} perf samples):")
            print("| part | share |\n| --- | --- |")
            for name, count in counts:
                print(f"| {name} | {count * 100 / total:.0f}% |")
            print(f"perf data: {out}")
    finally:
        if http_process:
            http_process.terminate()
            http_process.wait(10)
        system.close()


if __name__ == "__main__":
    main()
