import Foundation

/// Clocks and medians. Times are reported, never asserted.
///
/// Each pass is timed twice: wall clock (`CLOCK_MONOTONIC`) and this thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`). The tables use CPU time: on a shared machine the wall clock
/// also counts the time other processes held the core, which says nothing about an engine.
/// Both are in the JSON.
enum Harness {
    static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Runs `body` once and returns its duration in nanoseconds, wall and thread CPU.
    static func measure(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        let wall = now()
        let cpu = now(CLOCK_THREAD_CPUTIME_ID)
        try body()
        let cpuEnd = now(CLOCK_THREAD_CPUTIME_ID)
        let wallEnd = now()
        return (Double(wallEnd - wall), Double(cpuEnd - cpu))
    }

    /// Thread CPU nanoseconds of one run of `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double { try measure(body).cpu }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// What the report says about the machine.
struct Machine {
    var cpu: String
    var logicalCPUs: Int
    var date: String
    /// `/proc/loadavg`'s first three fields: other work on the machine skews wall-clock times.
    var loadAverage: String

    static func current() -> Machine {
        var cpu = "unknown"
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
        return Machine(
            cpu: cpu, logicalCPUs: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), date: formatter.string(from: Date()),
            loadAverage: load)
    }
}

/// "1 000" style thousands grouping, for titles.
func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 && digit != "-" && digits[index - 1] != "-" { out += " " }
        out.append(digit)
    }
    return out
}

func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
