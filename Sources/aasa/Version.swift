import AASAKit

/// The version `aasa --version` prints; the one place it is set.
enum AASAVersion {
    static let current = "0.9.0"

    /// With the artifact format: a fleet needs to know whether a shipped `.aasac` still loads.
    static var line: String { "aasa \(current) (compiled artifact format \(CompiledArtifact.version))" }
}
