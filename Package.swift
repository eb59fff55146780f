// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "rnm",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Messaging", targets: ["Messaging"]),
        .executable(name: "Gateway", targets: ["GatewayProgram"]),
        .executable(name: "CharacterService", targets: ["CharacterServiceProgram"]),
        .executable(name: "UniversityService", targets: ["UniversityServiceProgram"]),
        .executable(name: "rnmctl", targets: ["rnmctlProgram"]),
        .executable(name: "HTTPGateway", targets: ["HTTPGatewayProgram"]),
        // The four programs in one binary, for the container image (see Sources/rnm).
        .executable(name: "rnm", targets: ["rnm"]),
        .executable(name: "rnm-bench", targets: ["RnmBench"]),
        // The tests' upstream stand-in as a program, for scripts and offline trials.
        .executable(name: "rnm-test-upstream", targets: ["RnmTestUpstream"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // No traits: the HTTPGateway needs neither swift-configuration nor full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Hummingbird's HTTP field types, which the HTTP front names itself.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Hummingbird's HTTP parts (NIOHTTPTypes), for the HTTPGateway's connection handlers.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // The HTTP front's `/graphql`: the schema in Graphiti, parsed, validated and run by GraphQL.
        .package(url: "https://github.com/GraphQLSwift/Graphiti", exact: "3.1.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", exact: "4.3.0"),
        // Observability: metrics through swift-metrics' API, exposed in Prometheus's text format;
        // W3C `traceparent` for the request's trace id (carried in a task-local).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
        // The web app's pages: Mustache templates, every value HTML-escaped as it is written.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // gzip of the micro-cache's answers, compressed once when stored.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // The favorites store shared by several CharacterService replicas (RNM_FAVORITES_URL).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Its TLS settings (`sslmode` of RNM_FAVORITES_URL).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // What every process reports: its metrics (one table of them, a Prometheus registry),
        // the request's trace id, JSON log lines.
        .target(
            name: "Telemetry",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]
        ),
        // The wire: framing, envelope, errors, server, client.
        .target(
            name: "Messaging",
            dependencies: [
                "Telemetry",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The API: the method table and every payload type, shared by rnmctl, the Gateway and
        // the services.
        .target(
            name: "RnmAPI",
            dependencies: ["Messaging", .product(name: "NIOCore", package: "swift-nio")]
        ),
        // The runtime every process shares: options, settings, logging, the service runner.
        .target(
            name: "ServiceRuntime",
            dependencies: [
                "Telemetry",
                "Messaging",
                "RnmAPI",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What both caching services share: the caching-service template (options, configuration),
        // the one cache rule, the upstream fetcher and its state, single flight, the database
        // helper, results.
        .target(
            name: "ServiceKit",
            dependencies: [
                "CCurlOnDemand",
                "Telemetry",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libcurl for URLSession, opened on its first call: see the file, and "libcurl" below.
        .target(
            name: "CCurlOnDemand", publicHeadersPath: ".",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "Gateway",
            dependencies: [
                "Telemetry",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "CharacterService",
            dependencies: [
                "Telemetry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                "ServiceKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "UniversityService",
            dependencies: [
                "Telemetry",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                "ServiceKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "rnmctl",
            dependencies: [
                "Telemetry",
                "Messaging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "RnmAPI",
                "ServiceRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The HTTP front: the public APIs' REST shapes, answered through the Gateway.
        .target(
            name: "HTTPGateway",
            dependencies: [
                "Telemetry",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Graphiti", package: "Graphiti"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // The web app's templates, style sheet, script and icon: files, compiled in.
            exclude: ["WebApp/Embedded"],
            plugins: ["EmbedFiles"]
        ),
        // Embeds a target's `Embedded` folders in its binary at build time (the HTTPGateway's).
        .plugin(
            name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"], path: "Plugins/EmbedFiles"),
        .executableTarget(name: "EmbedFilesTool", path: "Sources/Tools/EmbedFilesTool"),
        // Each program's thin `main`: the code lives in the library of the same name, so that
        // tests and the multi-call binary can use it.
        .executableTarget(
            name: "GatewayProgram", dependencies: ["ServiceRuntime", "Gateway"], path: "Sources/Programs/Gateway"),
        .executableTarget(
            name: "CharacterServiceProgram", dependencies: ["ServiceRuntime", "CharacterService"],
            path: "Sources/Programs/CharacterService"),
        .executableTarget(
            name: "UniversityServiceProgram", dependencies: ["ServiceRuntime", "UniversityService"],
            path: "Sources/Programs/UniversityService"),
        .executableTarget(name: "rnmctlProgram", dependencies: ["rnmctl"], path: "Sources/Programs/rnmctl"),
        .executableTarget(
            name: "HTTPGatewayProgram", dependencies: ["ServiceRuntime", "HTTPGateway"],
            path: "Sources/Programs/HTTPGateway"),
        // One binary that is any of the four programs, chosen by the name it is run as: the image
        // ships one copy of the Swift runtime and Foundation instead of four.
        .executableTarget(
            name: "rnm",
            dependencies: [
                "ServiceRuntime", "Gateway", "CharacterService", "UniversityService", "rnmctl", "HTTPGateway",
            ]),
        .executableTarget(
            name: "RnmBench",
            dependencies: [
                "Messaging",
                "RnmAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/RnmBench"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                "Messaging",
                "RnmAPI",
                "ServiceRuntime",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/TestSupport",
            resources: [.copy("Fixtures")]
        ),
        .executableTarget(name: "RnmTestUpstream", dependencies: ["TestSupport"], path: "Tests/TestUpstreamProgram"),
        .testTarget(
            name: "TelemetryTests",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"), "Telemetry", "TestSupport",
            ]
        ),
        // The libraries' own tests, each target depending on the library it tests (and on TestSupport
        // for its waits, ServiceKit's).
        .testTarget(name: "RnmAPITests", dependencies: ["RnmAPI"]),
        .testTarget(name: "ServiceRuntimeTests", dependencies: ["ServiceRuntime"]),
        .testTarget(name: "ServiceKitTests", dependencies: ["ServiceKit", "RnmAPI", "TestSupport"]),
        .testTarget(
            name: "MessagingTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "Messaging",
                "RnmAPI",
                "TestSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                "ServiceKit",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "Gateway", "UniversityService",
                "CharacterService", "TestSupport", "Messaging", "RnmAPI", "ServiceRuntime",
            ]
        ),
        .testTarget(
            name: "CharacterServiceTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), "CharacterService", "TestSupport", "Messaging",
                "RnmAPI", "ServiceRuntime", "ServiceKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "RnmctlTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), "TestSupport", "Messaging", "RnmAPI", "ServiceRuntime",
                "Gateway", "CharacterService", "UniversityService", "rnmctl",
            ]
        ),
        .testTarget(
            name: "SystemTests",
            dependencies: [
                "TestSupport", "Messaging", "RnmAPI", "ServiceRuntime", "Gateway", "CharacterService",
                "UniversityService", "Telemetry",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HTTPGatewayTests",
            dependencies: [
                "HTTPGateway", "Gateway", "CharacterService", "UniversityService", "TestSupport", "Messaging", "RnmAPI",
                "ServiceRuntime", "Telemetry", .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "UniversityServiceTests",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), "UniversityService", "TestSupport", "Messaging",
                "RnmAPI", "ServiceRuntime", "ServiceKit",
            ]
        ),
    ]
)

// The libFuzzer target for the frame decoder and the envelope parser, only when asked for
// (`scripts/fuzz` sets RNM_FUZZ=1): it has no `main` of its own, libFuzzer provides it.
if Context.environment["RNM_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "FuzzMessaging",
            dependencies: [
                "Messaging",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Fuzz/FuzzMessaging"
        ))
    package.products.append(.executable(name: "FuzzMessaging", targets: ["FuzzMessaging"]))
}

// A warning in rnm's own code fails the build where it counts: CI sets RNM_WARNINGS_AS_ERRORS
// (.ci/run). Only rnm's targets: the dependencies' warnings are theirs to fix.
if Context.environment["RNM_WARNINGS_AS_ERRORS"] != nil {
    for target in package.targets where target.type != .plugin {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
    }
}

// libcurl: URLSession's, on Linux. No module names it in its link (`-disable-autolink-library`):
// linked with the Swift runtime static (the image), CCurlOnDemand stands in for it and opens it
// on the first call, so a program that never fetches from an upstream (rnmctl) does not load it
// and its 30 libraries at start; linked dynamically, libFoundationNetworking.so brings it.
for target in package.targets where target.type != .plugin && target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(["-Xfrontend", "-disable-autolink-library", "-Xfrontend", "curl"], .when(platforms: [.linux]))
        ]
}

// How the image links `rnm` (RNM_IMAGE=1, with `--static-swift-stdlib`: the Dockerfile and
// scripts/bench), for rnmctl's start and the image's size (BENCHMARKS.md, session 17): lld with
// relative relocations packed (DT_RELR, glibc 2.36: bookworm's), none of its own symbols in the
// dynamic symbol table (the Swift runtime's static arguments export them all, which only a
// debugger would read), and stripped.
if Context.environment["RNM_IMAGE"] != nil, let rnm = package.targets.first(where: { $0.name == "rnm" }) {
    rnm.linkerSettings = [
        .unsafeFlags(
            [
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                "-Xlinker", "-s",
            ], .when(platforms: [.linux]))
    ]
}
