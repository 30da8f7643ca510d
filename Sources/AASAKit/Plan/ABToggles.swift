import Foundation

/// TEMPORARY (issue 23 A/B): switches that turn one piece of speed work off when a document is
/// compiled (plan or build time, never per URL). Set from the environment (`AASA_AB_NO_TAILS=1`)
/// or by the benchmark's A/B harness between two compiles of one document.
public enum ABToggle {
    private static func on(_ name: String) -> Bool { ProcessInfo.processInfo.environment[name] == "1" }
    nonisolated(unsafe) public static var noCompact = on("AASA_AB_NO_COMPACT")
    nonisolated(unsafe) public static var noSplit = on("AASA_AB_NO_SPLIT")
    nonisolated(unsafe) public static var noOpening = on("AASA_AB_NO_OPENING")
    nonisolated(unsafe) public static var noSegments = on("AASA_AB_NO_SEGMENTS")
    nonisolated(unsafe) public static var wideHeaders = on("AASA_AB_WIDE_HEADERS")
    nonisolated(unsafe) public static var noTails = on("AASA_AB_NO_TAILS")
    nonisolated(unsafe) public static var noInlinePairs = on("AASA_AB_NO_INLINE_PAIRS")
    nonisolated(unsafe) public static var noEndings = on("AASA_AB_NO_ENDINGS")
    nonisolated(unsafe) public static var noSegmentSuffixes = on("AASA_AB_NO_SEGMENT_SUFFIXES")

    /// The switches by name, for the harness.
    public static let names = [
        "compact", "split", "opening", "segments", "wide-headers", "tails", "inline-pairs", "endings", "segment-suffixes",
    ]

    /// Sets the switch `name` (one of `names`).
    public static func set(_ name: String, _ value: Bool) {
        switch name {
        case "compact": noCompact = value
        case "split": noSplit = value
        case "opening": noOpening = value
        case "segments": noSegments = value
        case "wide-headers": wideHeaders = value
        case "tails": noTails = value
        case "inline-pairs": noInlinePairs = value
        case "endings": noEndings = value
        case "segment-suffixes": noSegmentSuffixes = value
        default: break
        }
    }
}
