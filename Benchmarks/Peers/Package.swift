// swift-tools-version:6.0
// Peers benchmark: our DFA matcher against RE2::Set and Hyperscan on the same AASA path rules
// and URL paths, in one process. A separate package so that the main package (library, CLI,
// tests) never depends on RE2 or Hyperscan.
//
//   apt-get install -y libre2-dev libhyperscan-dev
//   swift run -c release --package-path Benchmarks/Peers aasa-peers
import PackageDescription

let package = Package(
    name: "aasa-peers",
    dependencies: [
        // The root package. Named explicitly, so that the build does not depend on the name of
        // the directory the repository was cloned into (a path dependency's identity is
        // otherwise its directory name).
        .package(name: "aasa", path: "../..")
    ],
    targets: [
        // The only C++ in the project: a small `extern "C"` shim over RE2::Set and Hyperscan.
        .target(
            name: "CPeers",
            path: "Sources/CPeers",
            linkerSettings: [.linkedLibrary("re2"), .linkedLibrary("hs")]
        ),
        .executableTarget(
            name: "aasa-peers",
            dependencies: [.product(name: "AASAKit", package: "aasa"), "CPeers"],
            path: "Sources/aasa-peers"
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
