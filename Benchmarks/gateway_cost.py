#!/usr/bin/env python3
"""Where a forward's time goes: the Gateway and the CharacterService beside the C relay (issue 40:
"the Gateway ≥ 0.6× the C relay ... its per-request path, measured against the relay's two
read/write pairs").

`characters.get` of a cached record through the Gateway (rnm-bench, 32 connections, one request
in flight each), then the C relay (`uds_pingpong`: its client, relay and echo server) echoing a
reply of the same size, in alternating rounds. For each run: requests/s, and the CPU each request
cost each process, user and kernel apart (utime and stime of /proc/PID/stat over the run; the load
generators' from wait4). With `--before DIR` (a folder holding an earlier build's Gateway and
CharacterService), that build is measured in the same rounds, the order alternating.

With `--counts` (needs perf and root: uprobes), the allocations (malloc, swift_allocObject),
reference counting (swift_retain, swift_release) and system calls (read, write, writev,
epoll_wait) each forward costs the Gateway and the service,
counted against a probe on a function each request passes once (`GatewayHandler.start`,
`RPCConnection.accept`).

`scripts/gateway-cost` builds the release products and runs it.

    Benchmarks/gateway_cost.py --bin .build/release --reference uds_pingpong [--seconds 5] [--rounds 3]
        [--before DIR] [--counts]"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import System, call  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
COUNTED = ["malloc", "swift_allocObject", "swift_retain", "swift_release"]
SYSCALLS = ["read", "write", "writev", "epoll_wait"]
# A function each request passes exactly once, per process (mangled names, in the binaries).
ONCE = {"gateway": ("Gateway", "$s7Gateway0A7HandlerC5start_7context5replySb9Messaging10RPCRequestV_AG0G7Context"
                    "Vys6ResultOyAG8RPCReplyOs5Error_pGYbctF"),
        "characters": ("CharacterService", "$s9Messaging13RPCConnectionC6acceptySb7NIOCore10ByteBufferVF")}


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def run(command, watched):
    """Runs a load generator; returns its output and each watched process's (user, kernel)
    seconds over the run, the generator's own under "client"."""
    before = {name: cpu(pid) for name, pid in watched.items()}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    out = process.stdout.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[0]} failed: {out}{process.stderr.read()}")
    spent = {name: tuple(a - b for a, b in zip(cpu(pid), before[name])) for name, pid in watched.items()}
    spent["client"] = (usage.ru_utime, usage.ru_stime)
    return out, spent


def rnm_run(binaries, system, seconds):
    out, spent = run([os.path.join(binaries, "rnm-bench"), "--socket", system.socket("gateway"), "--connections",
                      "32", "--duration", str(seconds), "--method", "characters.get", "--params", '{"id":1}',
                      "--json"],
                     {"Gateway": system.processes["gateway"].pid, "CharacterService": system.processes["characters"].pid})
    return json.loads(out.strip().splitlines()[-1])["perSecond"], spent


def relay_run(reference, directory, seconds, size):
    server, relay = f"{directory}/pp-srv.sock", f"{directory}/pp-rly.sock"
    processes = [subprocess.Popen([reference, "server", server]), subprocess.Popen([reference, "relay", relay, server])]
    try:
        out, spent = run([reference, "client", relay, "32", str(seconds), str(size)],
                         {"relay": processes[1].pid, "echo": processes[0].pid})
    finally:
        for process in processes:
            process.kill()
            process.wait()
    return float(dict(item.split("=") for item in out.split())["rt_per_s"]), spent


def start(binaries):
    system = System(binaries)
    for role, executable in System.ROLES:
        system.start(role, executable)
    call(system.socket("gateway"), "characters.get", {"id": 1})
    return system


def counts(binaries, seconds):
    """Allocations and reference counts per request in the Gateway and the service."""
    rows = {}
    for role, (executable, once) in ONCE.items():
        path = os.path.realpath(os.path.join(binaries, executable))
        address = next((line.split()[0] for line in subprocess.run(["nm", path], capture_output=True, text=True)
                        .stdout.splitlines() if line.endswith(" " + once)), None)
        if address is None:
            raise SystemExit(f"{once} not found in {path}")
        # The Swift runtime and libc the binary loads (a static build has its runtime inside).
        libraries = dict(re.findall(r"\s(lib(?:swiftCore|c)\.so[.\d]*) => (\S+)",
                                    subprocess.run(["ldd", path], capture_output=True, text=True).stdout))
        core = next((v for k, v in libraries.items() if k.startswith("libswiftCore")), path)
        libc = next((v for k, v in libraries.items() if k.startswith("libc.")), "/lib/x86_64-linux-gnu/libc.so.6")
        subprocess.run(["perf", "probe", "-q", "-d", "probe_rnm:*"], capture_output=True)
        probes = [["-x", path, "--add", f"probe_rnm:once=0x{address}"],
                  ["-x", libc, "--add", "probe_rnm:malloc=malloc"]]
        probes += [["-x", core, "--add", f"probe_rnm:{name}={name}"] for name in COUNTED[1:]]
        for probe in probes:
            subprocess.run(["perf", "probe", "-q"] + probe, check=True, capture_output=True)
        system = start(binaries)
        try:
            output = tempfile.mktemp(prefix="gateway-cost-", dir="/tmp")
            events = ",".join(["probe_rnm:*"] + [f"syscalls:sys_enter_{name}" for name in SYSCALLS])
            perf = subprocess.Popen(["perf", "stat", "-x,", "-o", output, "-e", events,
                                     "-p", str(system.processes[role].pid)])
            rnm_run(binaries, system, seconds)
            perf.send_signal(2)
            perf.wait()
            found = {}
            for line in open(output):
                parts = line.split(",")
                if len(parts) > 2 and parts[2].startswith(("probe_rnm:", "syscalls:")):
                    found[parts[2].split(":")[1].removeprefix("sys_enter_")] = float(parts[0])
            os.unlink(output)
        finally:
            system.close()
            subprocess.run(["perf", "probe", "-q", "-d", "probe_rnm:*"], capture_output=True)
        requests = found.pop("once")
        rows[executable] = {name: found[name] / requests for name in COUNTED + SYSCALLS}
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--reference", required=True, help="the C reference (uds_pingpong), built")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="a folder with an earlier build's Gateway and CharacterService")
    parser.add_argument("--counts", action="store_true", help="allocations and reference counts (perf, root)")
    args = parser.parse_args()
    builds = {"now": args.bin}
    scratch = None
    if args.before:
        # The earlier Gateway and CharacterService beside this build's other programs.
        scratch = tempfile.mkdtemp(prefix="gateway-cost-before-", dir="/tmp")
        for name in ("UniversityService", "rnm-bench", "rnm-test-upstream"):
            os.symlink(os.path.abspath(os.path.join(args.bin, name)), os.path.join(scratch, name))
        for name in ("Gateway", "CharacterService"):
            os.symlink(os.path.abspath(os.path.join(args.before, name)), os.path.join(scratch, name))
        builds["before"] = scratch
    results = {label: [] for label in builds}
    relays = []
    try:
        for round in range(args.rounds):
            order = list(builds) if round % 2 == 0 else list(builds)[::-1]
            for label in order:
                system = start(builds[label])
                try:
                    _, size = call(system.socket("gateway"), "characters.get", {"id": 1})
                    rate, spent = rnm_run(builds[label], system, args.seconds)
                    results[label].append((rate, spent))
                    relay = relay_run(args.reference, system.dir, args.seconds, size)
                    relays.append((label, relay))
                    results[label][-1] += (relay[0],)
                finally:
                    system.close()
        print(f"\nA forward through the Gateway at 32 connections beside the C relay, {args.seconds:g} s runs, "
              f"{args.rounds} rounds, reply of characters.get = {size} bytes\n")
        print("| build | requests/s (rounds) | ÷ C relay (rounds) | µs of CPU a request: Gateway (user + kernel) "
              "| CharacterService | rnm-bench | all |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for label, runs in results.items():
            rates = [r for r, _, _ in runs]
            ratios = [r / relay for r, _, relay in runs]
            middle = sorted(runs, key=lambda x: x[0])[len(runs) // 2]
            rate, spent, _ = middle
            def cell(name):
                user, kernel = spent[name]
                return f"{(user + kernel) / (rate * args.seconds) * 1e6:.1f} ({user / (rate * args.seconds) * 1e6:.1f} + " \
                       f"{kernel / (rate * args.seconds) * 1e6:.1f})"
            total = sum(u + k for u, k in spent.values()) / (rate * args.seconds) * 1e6
            print(f"| {label} | {statistics.median(rates):,.0f} ({', '.join(f'{r:,.0f}' for r in rates)}) | "
                  f"{statistics.median(ratios):.2f}× ({', '.join(f'{r:.2f}' for r in ratios)}) | {cell('Gateway')} | "
                  f"{cell('CharacterService')} | {cell('client')} | {total:.1f} |")
        rate, spent = sorted((relay for _, relay in relays), key=lambda x: x[0])[len(relays) // 2]
        per = {name: (u + k) / (rate * args.seconds) * 1e6 for name, (u, k) in spent.items()}
        print(f"| C relay | {rate:,.0f} | 1.00× | relay {per['relay']:.1f} | echo {per['echo']:.1f} | "
              f"client {per['client']:.1f} | {sum(per.values()):.1f} |")
        if args.counts:
            print("\nPer request:\n")
            print("| build | process | " + " | ".join(COUNTED + SYSCALLS) + " |")
            print("| --- | --- | " + " | ".join("---:" for _ in COUNTED + SYSCALLS) + " |")
            for label, binaries in builds.items():
                for executable, row in counts(binaries, min(args.seconds, 2)).items():
                    print(f"| {label} | {executable} | " + " | ".join(f"{row[n]:.1f}" for n in COUNTED)
                          + " | " + " | ".join(f"{row[n]:.2f}" for n in SYSCALLS) + " |")
    finally:
        if scratch:
            shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
