/// Stable text dumps of the automata, for `aasa debug nfa|dfa` and snapshot tests.
///
/// Byte sets are printed as ranges of hex bytes (`[2f]`, `[61-7a]`); printable ASCII is shown
/// beside them so a person can read a pattern back from its automaton.
///
/// Accepting states show their tags as `r` + the tag (rule numbers), or with another `tag`
/// prefix: query-item automata tag predicates, `p`.
public enum AutomatonDump {
    public static func describe(_ nfa: NFA, tag prefix: String = "r") -> String {
        var lines = ["nfa: \(nfa.stateCount) states, start \(nfa.start), \(nfa.byteClasses().count) byte classes"]
        for (id, name) in nfa.variableNames.enumerated() {
            let start = nfa.variableStarts[id]
            // A variable's name is any JSON string: shown on one line, its controls escaped.
            lines.append("variable $(\(VisibleText.escapedLine(name))): " + (start >= 0 ? "start \(start)" : "undefined (never matches)"))
        }
        for state in 0..<nfa.stateCount {
            var parts: [String] = []
            switch nfa.kinds[state] {
            case .plain: break
            case .match(let tag): parts.append("match \(prefix)\(tag)")
            case .call(let variable, let next): parts.append("call $(\(VisibleText.escapedLine(nfa.variableNames[Int(variable)]))) then \(next)")
            case .ret: parts.append("return")
            }
            for transition in nfa.transitions(of: Int32(state)) {
                parts.append("\(byteRange(transition.low, transition.high)) -> \(transition.next)")
            }
            let epsilons = nfa.epsilons(of: Int32(state))
            if !epsilons.isEmpty { parts.append("eps -> " + epsilons.map(String.init).joined(separator: ", ")) }
            lines.append("\(state): " + (parts.isEmpty ? "(no edges)" : parts.joined(separator: "; ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func describe(_ dfa: DenseDFA, tag prefix: String = "r") -> String {
        var lines = ["dfa: \(dfa.stateCount) states (0 dead, 1 start), \(dfa.classes.count) byte classes"]
        var classLine: [String] = []
        for cls in 0..<dfa.classes.count {
            classLine.append("\(cls)=" + byteSet((0..<256).filter { Int(dfa.classes.classOf[$0]) == cls }.map { UInt8($0) }))
        }
        lines.append("classes: " + classLine.joined(separator: " "))
        for state in 1..<dfa.stateCount {
            var targets: [Int32: [UInt8]] = [:]
            for byte in 0..<256 {
                let target = dfa.transitions[state * dfa.classes.count + Int(dfa.classes.classOf[byte])]
                if target != DenseDFA.dead { targets[target, default: []].append(UInt8(byte)) }
            }
            let edges = targets.keys.sorted().map { "\(byteSet(targets[$0] ?? [])) -> \($0)" }
            let accept = dfa.accepts[state].isEmpty ? "" : " accept {" + dfa.accepts[state].map { "\(prefix)\($0)" }.joined(separator: ", ") + "}"
            lines.append("\(state)\(accept): " + (edges.isEmpty ? "(no edges)" : edges.joined(separator: "; ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func byteRange(_ low: UInt8, _ high: UInt8) -> String {
        func show(_ byte: UInt8) -> String {
            let hex = String(byte, radix: 16)
            let padded = hex.count == 1 ? "0" + hex : hex
            return (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "]") ? "\(padded)'\(Character(Unicode.Scalar(byte)))'" : padded
        }
        return low == high ? "[\(show(low))]" : "[\(show(low))-\(show(high))]"
    }

    /// A sorted byte list as a union of ranges: `[2f]|[61-7a]`.
    static func byteSet(_ bytes: [UInt8]) -> String {
        var ranges: [String] = []
        var index = 0
        while index < bytes.count {
            var end = index
            while end + 1 < bytes.count, bytes[end + 1] == bytes[end] + 1 { end += 1 }
            ranges.append(byteRange(bytes[index], bytes[end]))
            index = end + 1
        }
        return ranges.joined(separator: "|")
    }
}
