import AASAKit
import CJemalloc
import Foundation

// `aasa`: a thin shell over AASAKit. Each command parses its arguments, calls the library, and
// maps the outcome to an exit status (see ExitCode).

signal(SIGPIPE, SIG_IGN)

/// A standard descriptor the caller closed (`>&-`, `2>&-`, `<&-`) is the number the next file
/// or socket gets: in `aasa fetch` and `aasa check` libcurl's wake-up socket pair took
/// descriptor 1, and the records went into it, lost, with status 0; under `2>&-`, the file of
/// `classify -o FILE` took descriptor 2 and got the run's summary. Each closed one is held by
/// `/dev/null` opened the other way round (read-only for an output), so that using it still
/// fails as a closed descriptor does (EBADF: "cannot write the output", status 5) and no other
/// file can take its number.
for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
    let held = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
    if held >= 0, held != descriptor {
        dup2(held, descriptor)
        close(held)
    }
}

let commands: [String: (ArraySlice<String>) -> ExitCode] = [
    "match": MatchCommand.run,
    "explain": ExplainCommand.run,
    "debug": DebugCommand.run,
    "test": TestCommand.run,
    "classify": ClassifyCommand.run,
    "compile": CompileCommand.run,
    "diff": DiffCommand.run,
    "cover": CoverCommand.run,
    "lint": LintCommand.run,
    "fetch": FetchCommand.run,
    "check": CheckCommand.run,
    "entitlements": EntitlementsCommand.run,
]

let overview = """
    OVERVIEW: match URLs against Apple apple-app-site-association (AASA) files, exactly and fast.
    \(AASAVersion.line)

    USAGE: aasa <command> [options]
           aasa help <command>    (the same as aasa <command> --help)
           aasa --version

    COMMANDS:
      classify      Classify a stream of URLs against the AASA files of many domains (the main job).
      compile       Compile AASA documents into an artifact that classify --compiled starts from at once.
      match         Decide, for each URL, which apps of one AASA file it opens (JSON lines).
      explain       Show, for a person, which rule decided a URL for one app, and why.
      test          Check an AASA file against a matrix of URLs (opens_app / opens_web).
      lint          Report what is wrong in AASA files: codes, JSON paths, fix hints (text, json, sarif, github).
      diff          Show which URLs two versions of an AASA file decide differently, with example URLs.
      cover         Find a URL for every rule (or prove there is none); can write a test matrix.
      fetch         Download domains' AASA files (origin or Apple's CDN) into a rules directory, refreshing them.
      check         Check a deployment: origin status, TLS, type, lint, the CDN copy by meaning, a test matrix.
      entitlements  Check an app's applinks: domains against their AASA files (rules directory or fetched).
      debug         Print a document's compiled automata (nfa | dfa | plan), as stable text.

    Run 'aasa <command> --help' for a command's options. Semantics: docs/semantics.md.

    \(ExitCode.table)
    """

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first else {
    printError(overview)
    exit(ExitCode.usage.rawValue)
}
if name == "--version" || name == "-V" || name == "version" {
    exit(CommandSupport.printed(AASAVersion.line + "\n").rawValue)
}
if name == "--help" || name == "-h" || name == "help" {
    // `aasa help classify` is what people type after reading the overview.
    guard name == "help", let topic = arguments.dropFirst().first else {
        exit(CommandSupport.printed(overview + "\n").rawValue)
    }
    guard let command = commands[topic] else {
        printError(UnknownCommand.message(topic, context: "aasa help", commands: commands.keys.sorted()))
        exit(ExitCode.usage.rawValue)
    }
    exit(command(["--help"]).rawValue)
}
guard let command = commands[name] else {
    printError(UnknownCommand.message(name, context: "aasa", commands: commands.keys.sorted()))
    exit(ExitCode.usage.rawValue)
}
exit(command(arguments.dropFirst()).rawValue)
