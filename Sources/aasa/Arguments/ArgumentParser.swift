/// A tiny command-line parser in the shape of swift-argument-parser (which cannot be fetched
/// here): declared options, flags and positionals, `--help` generated from the declaration, and
/// usage errors that become exit status 2.
struct CommandSpec {
    struct Option {
        var name: String
        var valueName: String
        var help: String
        var repeatable = false
    }

    struct Flag {
        var name: String
        var help: String
    }

    var name: String
    var abstract: String
    var usage: String
    var options: [Option] = []
    var flags: [Flag] = []
    var discussion: String = ""

    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n"
        if !options.isEmpty || !flags.isEmpty {
            text += "\nOPTIONS:\n"
            let rows = options.map { ("--\($0.name) <\($0.valueName)>", $0.help) }
                + flags.map { ("--\($0.name)", $0.help) } + [("-h, --help", "Show help information.")]
            let width = (rows.map(\.0.count).max() ?? 0) + 2
            for (left, right) in rows {
                text += "  " + left + String(repeating: " ", count: width - left.count) + right + "\n"
            }
        }
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        // `fetch` and `check` have a `--limit <bytes>` of their own, not the configuration limits.
        if options.contains(where: { $0.name == "limit" && $0.valueName == "name=n" }) { text += "\n" + CommandSupport.limitsHelp + "\n" }
        return text
    }
}

/// The parsed arguments of one command.
struct ParsedArguments {
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var helpRequested = false

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}

struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension CommandSpec {
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        do throws(UsageError) {
            return try parseAll(arguments)
        } catch {
            // `--help` wins over a mistake elsewhere on the line (`aasa match --help --bogus`):
            // whoever asked for help is still learning how to write the rest.
            guard arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) else { throw error }
            var parsed = ParsedArguments()
            parsed.helpRequested = true
            return parsed
        }
    }

    private func parseAll(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                parsed.helpRequested = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "unknown option '\(argument)'")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(where: { $0.name == name }) {
                guard inlineValue == nil else { throw UsageError(message: "flag '--\(name)' takes no value") }
                parsed.flags.insert(name)
            } else if let option = options.first(where: { $0.name == name }) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError(message: "missing value for '--\(name) <\(option.valueName)>'")
                    }
                    value = arguments[index]
                    index += 1
                }
                if parsed.options[name] != nil, !option.repeatable {
                    throw UsageError(message: "'--\(name)' given more than once")
                }
                parsed.options[name, default: []].append(value)
            } else {
                throw UsageError(message: "unknown option '--\(name)'")
            }
        }
        return parsed
    }
}
