// swift-tools-version:6.0
// The AASA engine: one library (document → pattern → automaton → matcher), a thin CLI and a
// benchmark harness. No package dependencies: SwiftPM cannot fetch here, and the C libraries
// (jemalloc; libcurl for `aasa fetch` and `aasa check`) come from Debian through system-library
// targets.
import PackageDescription

let package = Package(
    name: "aasa",
    products: [
        .library(name: "AASAKit", targets: ["AASAKit"]),
        .library(name: "AASAWeb", targets: ["AASAWeb"]),
        .executable(name: "aasa", targets: ["aasa"]),
        .executable(name: "aasa-bench", targets: ["aasa-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CJemalloc",
            path: "Sources/CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        // Only AASAWeb links libcurl: AASAKit never touches the network.
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "AASAKit",
            path: "Sources/AASAKit",
            // Debug builds (the test suite) optimise the library but keep every `assert`: the
            // tests exercise the code users run, with its invariant checks on, and the
            // 100 000-comparison differential suites finish in seconds instead of minutes.
            swiftSettings: [.unsafeFlags(["-O", "-assert-config", "Debug"], .when(configuration: .debug))]
        ),
        // fetch, check, entitlements --fetch: transfers through libcurl, atomic writes.
        .target(
            name: "AASAWeb",
            dependencies: ["AASAKit", "CCurl"],
            path: "Sources/AASAWeb"
        ),
        .executableTarget(
            name: "aasa",
            dependencies: ["AASAKit", "AASAWeb", "CJemalloc"],
            path: "Sources/aasa",
            // As for the library: the CLI tests stream a million lines through this binary.
            swiftSettings: [.unsafeFlags(["-O", "-assert-config", "Debug"], .when(configuration: .debug))]
        ),
        // The benchmark harness lives in BenchmarkKit; the two executables differ only in the
        // allocator: aasa-bench links jemalloc (and reads its counters), aasa-bench-sysalloc
        // runs the same workloads on the system allocator for the memory suite's side-by-side.
        .target(
            name: "CBenchmarkSupport",
            path: "Benchmarks/Sources/CBenchmarkSupport"
        ),
        .target(
            name: "BenchmarkKit",
            dependencies: ["AASAKit", "CBenchmarkSupport"],
            path: "Benchmarks/Sources/BenchmarkKit"
        ),
        .executableTarget(
            name: "aasa-bench",
            dependencies: ["BenchmarkKit", "CJemalloc"],
            path: "Benchmarks/Sources/aasa-bench"
        ),
        .executableTarget(
            name: "aasa-bench-sysalloc",
            dependencies: ["BenchmarkKit"],
            path: "Benchmarks/Sources/aasa-bench-sysalloc"
        ),
        .target(
            name: "_AASATestSupport",
            // BenchmarkKit: Apple's example document lives there once, shared with the tests.
            dependencies: ["AASAKit", "BenchmarkKit"],
            path: "Tests/_AASATestSupport",
            // Generators and output scanners handle millions of lines: optimised, asserts kept.
            swiftSettings: [.unsafeFlags(["-O", "-assert-config", "Debug"], .when(configuration: .debug))]
        ),
        .testTarget(
            name: "AASAKitTests",
            dependencies: ["AASAKit", "_AASATestSupport"],
            path: "Tests/AASAKitTests"
        ),
        // Runs a command and reports its own peak memory, for the hostile-input tests' bounds
        // (a child of the large test process would inherit that process's peak).
        .executableTarget(
            name: "child-rusage",
            path: "Tests/ChildRusage"
        ),
        .testTarget(
            name: "AASAWebTests",
            dependencies: ["AASAWeb"],
            path: "Tests/AASAWebTests"
        ),
        .testTarget(
            name: "aasaCLITests",
            dependencies: ["AASAKit", "_AASATestSupport", "aasa", "child-rusage"],
            path: "Tests/aasaCLITests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
