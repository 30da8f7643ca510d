import Foundation

/// The command line of `aasa-bench` (and `aasa-bench-sysalloc`).
public struct Options: Sendable {
    public enum Suite: String, CaseIterable, Sendable {
        case match, real, compile, memory, classify, fleet, analysis, hostile, agreement
    }

    public var quick = false
    public var suites: [Suite] = []
    public var jsonPath = "Benchmarks/Results/latest.json"
    public var baselinePath: String?
    /// Percent a deterministic counter may grow before the comparison fails.
    public var tolerance = 10.0
    /// Percent a tracked ratio may worsen before the comparison fails.
    public var ratioTolerance = 50.0
    public var writeBaselinePath: String?
    public var corpusDirectory = "corpus"
    public var sharedDirectory = "../shared"
    public var seed: UInt64 = 0xA5A5_2026
    /// Internal: run one memory-suite workload and print its figures as one JSON line.
    public var probe: String?
    /// The arguments as given, for the report ("the exact command").
    public var command = ""

    /// The suites to run, in canonical order (agreement last, it reuses the others' workloads).
    public var selectedSuites: [Suite] {
        let chosen = suites.isEmpty ? Suite.allCases : suites
        return Suite.allCases.filter { chosen.contains($0) }
    }

    public static let usage = """
        usage: aasa-bench [--quick] [--suite NAME]... [--json FILE]
                          [--baseline FILE [--tolerance P] [--ratio-tolerance P]] [--write-baseline FILE]
                          [--corpus DIR] [--shared DIR] [--seed N] [--help]

        Benchmarks the AASA engine: the lazy DFA against the reference matcher (and a regex
        baseline) on the same URLs in the same run, ratios first. Run from the package root.

          --quick               CI size: every suite in small form, well under 2 minutes
          --suite NAME          run only this suite (repeatable): match, real, compile, memory,
                                classify, fleet, analysis, hostile, agreement (default: all)
          --json FILE           write the results (default Benchmarks/Results/latest.json)
          --baseline FILE       compare deterministic counters and ratios with FILE; exit 1 on a
                                regression, naming each figure that moved and by how much
          --tolerance P         percent a counter may grow (default 10)
          --ratio-tolerance P   percent a ratio may worsen (default 50: the box is noisy)
          --write-baseline FILE write this run's counters and ratios as a baseline
          --corpus DIR          the bundled scenarios (default corpus)
          --shared DIR          the shared corpus root holding corpus/aasa/real, corpus/urls and
                                corpus/domains (default ../shared); suites that need it are skipped
                                with a message when it is absent
          --seed N              seed of the synthetic documents and URL streams
          --help                this text

        Exit status: 0 on success; 1 when the engines disagree on any URL or the baseline
        comparison fails; 2 on a usage error.
        """

    public static func parse(_ arguments: [String]) -> Result<Options, OptionsError> {
        var options = Options()
        options.command = arguments.joined(separator: " ")
        var rest = arguments.dropFirst()[...]
        func value(_ flag: String) throws(OptionsError) -> String {
            guard let next = rest.popFirst() else { throw .missingValue(flag) }
            return next
        }
        func number(_ flag: String) throws(OptionsError) -> Double {
            let text = try value(flag)
            guard let number = Double(text), number >= 0 else { throw .badValue(flag, text) }
            return number
        }
        do throws(OptionsError) {
            while let argument = rest.popFirst() {
                switch argument {
                case "--quick": options.quick = true
                case "--suite":
                    let name = try value(argument)
                    guard let suite = Suite(rawValue: name) else { throw .badValue(argument, name) }
                    options.suites.append(suite)
                case "--json": options.jsonPath = try value(argument)
                case "--baseline": options.baselinePath = try value(argument)
                case "--tolerance": options.tolerance = try number(argument)
                case "--ratio-tolerance": options.ratioTolerance = try number(argument)
                case "--write-baseline": options.writeBaselinePath = try value(argument)
                case "--corpus": options.corpusDirectory = try value(argument)
                case "--shared": options.sharedDirectory = try value(argument)
                case "--seed":
                    let text = try value(argument)
                    guard let seed = UInt64(text) else { throw .badValue(argument, text) }
                    options.seed = seed
                case "--probe": options.probe = try value(argument)
                case "-h", "--help": throw .help
                default: throw .unknown(argument)
                }
            }
        } catch {
            return .failure(error)
        }
        return .success(options)
    }
}

public enum OptionsError: Error, CustomStringConvertible {
    case help
    case unknown(String)
    case missingValue(String)
    case badValue(String, String)

    public var description: String {
        switch self {
        case .help: return "help requested"
        case .unknown(let flag): return "unknown argument \(flag)"
        case .missingValue(let flag): return "\(flag) needs a value"
        case .badValue(let flag, let value): return "bad value for \(flag): \(value)"
        }
    }
}
