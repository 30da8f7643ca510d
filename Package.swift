// swift-tools-version:6.0
// The AASA engine: one library (document → pattern → automaton → matcher), its C ABI (libaasa),
// a thin CLI and a benchmark harness. No package dependencies: SwiftPM cannot fetch here, and the
// C libraries (jemalloc; libcurl for `aasa fetch` and `aasa check`) come from Debian through
// system-library targets.
import PackageDescription

// libaasa's link (the AASACABI target): the Swift runtime and Foundation in the library, soname
// libaasa.so.1. Built up here: as one expression it is too much for the manifest's type checker.
var libaasaLinkerFlags = ["-static-stdlib", "-Xlinker", "-soname=libaasa.so.1", "-Xlinker", "--no-undefined", "-Xlinker", "--start-group"]
for library in [
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "CoreFoundation", "_FoundationICU",
    "_FoundationCollections", "_FoundationCShims", "swiftSynchronization", "dispatch", "swiftDispatch", "BlocksRuntime", "swiftCore",
] {
    libaasaLinkerFlags += ["-Xlinker", "-l" + library]
}
libaasaLinkerFlags += ["-Xlinker", "--end-group"]

// The test modules are not optimised in `make test`'s release build (the library and
// _AASATestSupport, which generates inputs and scans outputs, are): optimising the test modules
// took over a minute of the build and gave little back, since their work is calls into the
// library and child processes (Benchmarks/Records/2026-12-07-unoptimised-test-modules.md).
let testModuleSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "aasa",
    products: [
        .library(name: "AASAKit", targets: ["AASAKit"]),
        .library(name: "AASAWeb", targets: ["AASAWeb"]),
        // libaasa-c.so, installed as libaasa.so.1 with libaasa.so beside it (`make install`; its
        // soname, libaasa.so.1, changes with an incompatible change of include/aasa.h).
        .library(name: "aasa-c", type: .dynamic, targets: ["AASACABI"]),
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
            path: "Sources/AASAKit"
            // No unsafe flags here or in any target a consumer builds: SwiftPM refuses them in a
            // versioned dependency. `make test` builds the tests in release with asserts kept
            // (`TEST_FLAGS` in the Makefile), so they run the code users run, asserts on.
        ),
        // fetch, check, entitlements --fetch: transfers through libcurl, atomic writes.
        .target(
            name: "AASAWeb",
            dependencies: ["AASAKit", "CCurl"],
            path: "Sources/AASAWeb"
        ),
        // jemalloc's options for `aasa` (huge pages for the heap): a C definition jemalloc reads
        // by name before `main`.
        .target(
            name: "CAllocatorSettings",
            path: "Sources/CAllocatorSettings",
            // DWARF 4: clang's default DWARF 5 stops Debian's valgrind (3.19) from reading the
            // executable at all, and the benchmark harness counts instructions with callgrind.
            // Only `aasa` links this target, so the flag never reaches a package depending on
            // AASAKit.
            cSettings: [.unsafeFlags(["-gdwarf-4"])]
        ),
        .executableTarget(
            name: "aasa",
            dependencies: ["AASAKit", "AASAWeb", "CJemalloc", "CAllocatorSettings"],
            path: "Sources/aasa"
        ),
        // libaasa: the C ABI (header in Sources/CAASA/include/aasa.h, implemented in Swift by
        // AASACABI). A separate C target only carries the header, so that the Swift side uses
        // the very struct layouts a C caller compiles against.
        .target(
            name: "CAASA",
            path: "Sources/CAASA"
        ),
        .target(
            name: "AASACABI",
            dependencies: ["AASAKit", "CAASA"],
            path: "Sources/AASACABI",
            // PERF: reading `DFAMatcher.decidingRule` from this module cost a dynamic exclusivity
            // check per URL (`@exclusivity(unchecked)` covers AASAKit's own accesses only): 76 of
            // aasa_decide's instructions on a document without apps (callgrind, decide_bench of
            // `make bench-embed`). Each `Worker` is used by one thread at a time (`Rules`).
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])],
            // The Swift runtime and Foundation linked in, so that a machine without the Swift
            // toolchain can load the library. Only libaasa links this target, and a package
            // depending on AASAKit never builds it, so these flags do not reach consumers.
            // Foundation's own static dependencies are not pulled in by -static-stdlib for a
            // shared library, hence the group; --no-undefined turns a missing one into a link
            // error instead of a library that fails when loaded.
            linkerSettings: [.unsafeFlags(libaasaLinkerFlags)]
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
        // The Swift half of `make bench-embed`'s decide pairing (Benchmarks/Embed/): the Swift
        // API on the system allocator, as libaasa runs in a C program.
        .executableTarget(
            name: "aasa-bench-decide",
            dependencies: ["AASAKit"],
            path: "Benchmarks/Sources/aasa-bench-decide"
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
            path: "Tests/AASAKitTests",
            swiftSettings: testModuleSettings
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
            path: "Tests/AASAWebTests",
            swiftSettings: testModuleSettings
        ),
        .testTarget(
            name: "aasaCLITests",
            dependencies: ["AASAKit", "_AASATestSupport", "aasa", "child-rusage"],
            path: "Tests/aasaCLITests",
            swiftSettings: testModuleSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
