import AASAKit

/// What `aasa NAME` and `aasa help NAME` say for a command that does not exist: one line naming
/// it, the nearest command when it is a typo away (`classfy`), and where the list is. The whole
/// overview (40 lines) used to follow, and pushed the one line that mattered off the screen.
enum UnknownCommand {
    static func message(_ name: String, context: String, commands: some Sequence<String>) -> String {
        var lines = ["\(context): unknown command '\(VisibleText.excerpt(name))'"]
        if let nearest = nearest(to: name, among: commands) { lines.append("Did you mean '\(nearest)'?") }
        lines.append("See 'aasa --help' for the commands.")
        return lines.joined(separator: "\n")
    }

    /// The command at most two edits (insert, delete, replace, or swap two neighbours) from
    /// `name`, and nearer than any other; nil when there is none or two tie. Names longer than
    /// any command plus two cannot be two edits away, so a hostile argument costs nothing.
    static func nearest(to name: String, among commands: some Sequence<String>) -> String? {
        let typed = Array(name.lowercased().utf8)
        var best: (name: String, distance: Int)?
        var tied = false
        for command in commands {
            let target = Array(command.utf8)
            guard abs(typed.count - target.count) <= 2 else { continue }
            let distance = editDistance(typed, target)
            guard distance <= 2 else { continue }
            if let current = best, current.distance == distance {
                tied = true
            } else if best.map({ distance < $0.distance }) ?? true {
                best = (command, distance)
                tied = false
            }
        }
        return tied ? nil : best?.name
    }

    /// Optimal string alignment distance: Levenshtein plus the swap of two neighbours, the
    /// commonest typo (`calssify`).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
