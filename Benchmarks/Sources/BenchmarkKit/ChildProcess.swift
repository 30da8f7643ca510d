#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion with its standard streams on files, timed from spawn to exit
/// (wall clock, and the CPU time the child used).
///
/// Why not Foundation's `Process`: its `waitUntilExit` polls a run loop, which blurs a
/// measurement of a few hundred milliseconds; `posix_spawn` and a blocking `wait4` time the
/// child and nothing else.
enum ChildProcess {
    struct Outcome {
        /// The exit status, or 128 + the signal number when the child was killed.
        var status: Int32
        var nanoseconds: UInt64
        /// User plus system CPU time of the child (all its threads), from `wait4`.
        var cpuNanoseconds: UInt64
        /// The child's peak resident set (`ru_maxrss`).
        var peakResidentBytes: Int
    }

    struct SpawnError: Error, CustomStringConvertible {
        var code: Int32
        var executable: String
        var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    static func run(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", stdout: String = "/dev/null",
        stderr: String = "/dev/null"
    ) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = Clock.now()
        let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard code == 0 else { throw SpawnError(code: code, executable: executable) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = Clock.now() - started
        let signal = status & 0x7F
        func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return Outcome(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, nanoseconds: elapsed,
            cpuNanoseconds: nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime),
            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }
}
