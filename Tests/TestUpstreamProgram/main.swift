// rnm-test-upstream: the tests' stand-in for an upstream API as a program of its own, for the
// scripts (compose smoke test, benchmarks) and for trying rnm without the internet. The same
// server the Swift tests run in-process (Tests/TestSupport): the real fixture data, served by
// the real servers' rules, with weak ETags and 304s as Express sends them.
//
//     rnm-test-upstream rickandmorty PORT [HOST]   # /api, its lists, records, avatars
//     rnm-test-upstream universities PORT [HOST]   # /search?country=…&name=…, /search: the world
//
// RNM_TEST_UPSTREAM_SCALE=N (1 to 1000, default 1): the Rick and Morty data N times over (N × 493
// characters, 76 locations, 31 episodes), for benchmarks of how cost grows with the data's size
// (Benchmarks/load.py): each copy's ids, names and links offset so that it is as coherent as the
// real data (RickAndMortyFixtures+Copies.swift says how). Unset or 1: the real data, byte for
// byte. The universities ignore it.
import Foundation
import TestSupport

let arguments = CommandLine.arguments
let scaleSetting = ProcessInfo.processInfo.environment["RNM_TEST_UPSTREAM_SCALE"] ?? "1"
guard let scale = Int(scaleSetting), (1...1000).contains(scale) else {
    FileHandle.standardError.write(
        Data("rnm-test-upstream: RNM_TEST_UPSTREAM_SCALE must be a whole number from 1 to 1000\n".utf8))
    exit(64)
}
let routes: [String: () -> @Sendable (UpstreamRequest) -> UpstreamResponse] = [
    "rickandmorty": { RickAndMortyFixtures(scale: scale).route }, "universities": { UniversityFixtures.route },
]
guard (3...4).contains(arguments.count), let makeRoute = routes[arguments[1]], let port = Int(arguments[2]),
    (1...65535).contains(port)
else {
    FileHandle.standardError.write(Data("usage: rnm-test-upstream rickandmorty|universities PORT [HOST]\n".utf8))
    exit(64)
}
let route = makeRoute()
let host = arguments.count == 4 ? arguments[3] : "127.0.0.1"
let upstream: TestUpstream
do {
    upstream = try await TestUpstream.start(host: host, port: port, route: route)
} catch {
    // One sentence, not a crash with a backtrace (another stand-in often holds the port already).
    FileHandle.standardError.write(
        Data("rnm-test-upstream: cannot listen on \(host):\(port) (\(error)); is another one running there?\n".utf8))
    exit(1)
}
// Written at once (not buffered): a script waits for this line.
FileHandle.standardOutput.write(Data("\(arguments[1]) test upstream listening at \(upstream.baseURL)\n".utf8))
// Serves until it is stopped (SIGTERM, SIGINT or SIGSTOP/SIGCONT to play a black hole).
while true { try await Task.sleep(for: .seconds(3600)) }
