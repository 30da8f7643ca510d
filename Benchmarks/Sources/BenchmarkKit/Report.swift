import Foundation

/// A Markdown table with a title that describes the workload.
public struct Table: Codable, Sendable {
    public var title: String
    public var columns: [String]
    public var rows: [[String]]
    public var notes: [String]

    public init(title: String, columns: [String], rows: [[String]] = [], notes: [String] = []) {
        self.title = title
        self.columns = columns
        self.rows = rows
        self.notes = notes
    }

    public var markdown: String {
        var out = "### \(title)\n\n"
        out += "| " + columns.joined(separator: " | ") + " |\n"
        out += "|" + columns.indices.map { $0 == 0 ? " :--- |" : " ---: |" }.joined() + "\n"
        for row in rows { out += "| " + row.joined(separator: " | ") + " |\n" }
        for note in notes { out += "\n" + note + "\n" }
        return out
    }
}

/// A ratio tracked by the CI baseline: which direction is better, so "drop by at most 50%"
/// means the right thing for speed-ups (higher is better) and for slow-downs (lower is better).
public struct TrackedRatio: Codable, Sendable {
    public var value: Double
    public var higherIsBetter: Bool
    public var meaning: String
}

/// Everything one suite measured.
public struct SuiteReport: Codable, Sendable {
    public var name: String
    public var skipped: String?
    /// Parts of the suite that did not run, and why (no shared corpus, no valgrind): their
    /// baseline figures are then missing with a reason, not a failure.
    public var partsSkipped: [String]? = nil
    public var tables: [Table] = []
    /// Deterministic figures (states built, cache clears, NFA states, bytes): compared with the
    /// baseline at `--tolerance`.
    public var counters: [String: Double] = [:]
    /// Ratios of times measured in the same run: compared at `--ratio-tolerance`.
    public var ratios: [String: TrackedRatio] = [:]
    /// Wall-clock figures, reported only (never compared).
    public var timings: [String: Double] = [:]
    public var disagreements: [Disagreement] = []
    public var seconds: Double = 0

    public init(name: String) {
        self.name = name
    }
}

/// One of the speed claims of issue 3, as measured in this run.
public struct Claim: Codable, Sendable {
    public var claim: String
    public var measured: String
    public var holds: Bool
}

/// The whole run, written as JSON (`--json`).
public struct BenchmarkReport: Codable, Sendable {
    public var date: String
    public var machine: Machine
    public var command: String
    public var quick: Bool
    public var allocator: String
    public var suites: [SuiteReport] = []
    public var claims: [Claim] = []
}

public struct Machine: Codable, Sendable {
    public var processors: Int
    public var cpu: String
    public var system: String
    public var swift: String

    public static func current() -> Machine {
        var cpu = "unknown"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var uts = utsname()
        uname(&uts)
        let system = withUnsafeBytes(of: &uts.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } + " "
            + withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #if swift(>=6.3)
        let swift = "Swift 6.3+"
        #else
        let swift = "Swift 6"
        #endif
        return Machine(processors: ProcessInfo.processInfo.activeProcessorCount, cpu: cpu, system: system, swift: swift)
    }
}

/// Number formatting for the tables: grouped counts ("20 000"), times with units, ratios.
public enum Format {
    public static func count(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "\u{202F}" }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    public static func nanoseconds(_ value: Double) -> String {
        switch value {
        case ..<1_000: return String(format: "%.0f ns", value)
        case ..<1_000_000: return String(format: "%.2f µs", value / 1_000)
        case ..<1_000_000_000: return String(format: "%.2f ms", value / 1_000_000)
        default: return String(format: "%.2f s", value / 1_000_000_000)
        }
    }

    public static func milliseconds(_ nanoseconds: Double) -> String {
        String(format: nanoseconds < 10_000_000 ? "%.2f ms" : "%.1f ms", nanoseconds / 1_000_000)
    }

    public static func rate(_ perSecond: Double) -> String {
        switch perSecond {
        case 1_000_000...: return String(format: "%.2f M/s", perSecond / 1_000_000)
        case 1_000...: return String(format: "%.1f k/s", perSecond / 1_000)
        default: return String(format: "%.0f /s", perSecond)
        }
    }

    public static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f×", value) : value >= 10 ? String(format: "%.1f×", value) : String(format: "%.2f×", value)
    }

    public static func bytes(_ value: Int) -> String {
        switch value {
        case ..<10_000: return "\(Format.count(value)) B"
        case ..<1_048_576: return String(format: "%.1f KiB", Double(value) / 1024)
        default: return String(format: "%.1f MiB", Double(value) / 1_048_576)
        }
    }

    public static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }
}
