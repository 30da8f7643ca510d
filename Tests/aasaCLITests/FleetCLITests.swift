import AASAKit
import Foundation
import XCTest
import _AASATestSupport

/// Many domains, one stream (the link shortener's workload) through the binary: a rules
/// directory of 10 000 generated documents and an interleaved stream over them. Whatever the
/// route (JSON compiled on first use, an artifact, one or two workers, the reference engine),
/// every line gets the same record; a broken document is reported when its domain is first met,
/// and one no URL reaches is never read.
final class FleetCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeTemporaryFolder("aasa-fleet")
    }

    /// Ten document shapes, so the fleet mixes text modes, variables, query items and excludes.
    static func document(_ index: Int) -> String {
        let team = "T\(index % 97)"
        switch index % 10 {
        case 0: return #"{"applinks":{"details":[{"appIDs":["\#(team).a"],"components":[{"/":"/p/*"}]}]}}"#
        case 1: return #"{"applinks":{"defaults":{"caseSensitive":false},"details":[{"appIDs":["\#(team).b"],"components":[{"/":"/Shop/*"},{"/":"/shop/x","exclude":true}]}]}}"#
        case 2: return #"{"applinks":{"details":[{"appIDs":["\#(team).c","\#(team).d"],"components":[{"/":"/caf\u00e9/*","percentEncoded":false}]}]}}"#
        case 3: return #"{"applinks":{"substitutionVariables":{"s":["a","bb","ccc"]},"details":[{"appIDs":["\#(team).e"],"components":[{"/":"/$(s)/$(digit)*"}]}]}}"#
        case 4: return #"{"applinks":{"details":[{"appIDs":["\#(team).f"],"components":[{"/":"/q","?":{"id":"?*","ref":"$(alnum)*"}}]}]}}"#
        case 5: return #"{"applinks":{"apps":[],"details":[{"appID":"\#(team).g","paths":["/old/*","NOT /old/private/*"]}]}}"#
        case 6: return ##"{"applinks":{"details":[{"appIDs":["\##(team).h"],"components":[{"/":"/*","#":"frag*"}]}]}}"##
        case 7: return #"{"applinks":{"details":[{"appIDs":["\#(team).i"],"components":[{"/":"/$(lang)_$(region)/*"}]}]}}"#
        case 8: return #"{"applinks":{"details":[]}}"#
        default: return #"{"applinks":{"details":[{"appIDs":["\#(team).j"],"components":[{"/":"*/end","?":"x=*"}]}]}}"#
        }
    }

    static let paths = [
        "/", "/p/1", "/Shop/item", "/SHOP/x", "/shop/x", "/caf%C3%A9/menu", "/café/menu", "/a/7", "/bb/12x", "/q?id=1&ref=Ab3",
        "/q?ref=", "/old/page", "/old/private/1", "/x#frag1", "/fr_FR/a", "/en_US/", "/a/b/end?x=1", "/a/b/end", "/%2F/end?x=",
    ]

    func fleet(domains: Int) throws -> (rules: String, input: String, lines: Int) {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        for index in 0..<domains {
            try Data(Self.document(index).utf8).write(to: rules.appendingPathComponent("d\(index).fleet.test.json"))
        }
        var generator = LinearCongruential(seed: 19)
        var text = ""
        let count = 30_000
        for line in 0..<count {
            let roll = generator.next() % 100
            let path = Self.paths[Int(generator.next() % UInt64(Self.paths.count))]
            if line % 997 == 5 {
                text += "not a url\n"
            } else if roll < 20 {
                text += "https://u\(generator.next() % 5000).unserved.test\(path)\n"
            } else {
                let host = "d\(generator.next() % UInt64(domains)).fleet.test"
                text += "https://\(roll < 23 ? host.uppercased() : host)\(path)\(roll % 7 == 0 ? "\r" : "")\n"
            }
        }
        let input = folder.appendingPathComponent("fleet.txt")
        try Data(text.utf8).write(to: input)
        return (rules.path, input.path, count)
    }

    func test_tenThousandDomains_everyRouteWritesTheSameRecords() throws {
        let (rules, input, count) = try fleet(domains: 10_000)
        let artifact = folder.appendingPathComponent("fleet.aasac").path
        let compile = try ChildProcess.run(["compile", rules, "-o", artifact], folder: folder)
        XCTAssertEqual(compile.status, 0, compile.summary)

        let plain = try ChildProcess.run(["classify", "--rules", rules, "--input", input], folder: folder)
        XCTAssertEqual(plain.status, 0, plain.summary)
        let records = String(decoding: plain.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(records.count, count)
        // The stream reaches served, unserved and refused lines, and some open apps.
        XCTAssertTrue(records.contains { $0.contains(#""decision": "match""#) })
        XCTAssertTrue(records.contains { $0.contains(#""domain": null"#) })
        XCTAssertTrue(records.contains { $0.contains(#""error": "#) })

        for arguments in [
            ["--rules", rules, "--jobs", "2"], ["--compiled", artifact], ["--compiled", artifact, "--jobs", "2"],
            ["--rules", rules, "--engine", "reference"],
        ] {
            let run = try ChildProcess.run(["classify"] + arguments + ["--input", input], folder: folder)
            XCTAssertEqual(run.status, 0, run.summary)
            if run.stdout != plain.stdout {
                let got = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
                let first = zip(got, records).first { $0 != $1 }
                XCTFail("\(arguments.joined(separator: " ")): records differ from --rules --jobs 1, first: \(String(describing: first))")
            }
        }
    }

    func test_brokenDocument_isReportedWhenFirstMet_andOneNeverMetIsNeverRead() throws {
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try Data(Self.document(0).utf8).write(to: rules.appendingPathComponent("good.test.json"))
        try Data("{ not json".utf8).write(to: rules.appendingPathComponent("broken.test.json"))
        try Data("[".utf8).write(to: rules.appendingPathComponent("untouched.test.json"))
        let input = folder.appendingPathComponent("in.txt")
        try Data("https://good.test/p/1\nhttps://broken.test/a\nhttps://BROKEN.test/b\n".utf8).write(to: input)
        let stats = folder.appendingPathComponent("stats.json").path
        let run = try ChildProcess.run(["classify", "--rules", rules.path, "--input", input.path, "--stats", stats], folder: folder)
        XCTAssertEqual(run.status, 0, run.summary)
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[0].contains(#""decision": "match""#), lines[0])
        for line in lines.dropFirst() { XCTAssertTrue(line.contains(#""error": "the document could not be loaded: "#), line) }
        // Reported once, when met; the untouched document is never read, so never reported.
        XCTAssertEqual(run.stderr.components(separatedBy: "cannot use the document of broken.test").count - 1, 1, run.stderr)
        XCTAssertFalse(run.stderr.contains("untouched.test"), run.stderr)
        XCTAssertTrue(run.stderr.contains("1 document could not be used (its URLs got error records): broken.test"), run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
        let unusable = try XCTUnwrap(summary["unusable_documents"] as? [[String: Any]])
        XCTAssertEqual(unusable.map { $0["domain"] as? String }, ["broken.test"])
        // `--stats` lists the domains URLs reached, as the text summary does: the untouched
        // one's apps were never read, and it has no records.
        let domains = try XCTUnwrap(summary["domains"] as? [[String: Any]])
        XCTAssertEqual(domains.map { $0["domain"] as? String }, ["broken.test", "good.test"])
        XCTAssertEqual(domains.map { $0["records"] as? Int }, [2, 1])
        XCTAssertEqual((domains.last?["apps"] as? [[String: Any]])?.map { $0["matches"] as? Int }, [1])
        // `compile` reads every document: it names both it cannot use, and counts them.
        let compile = try ChildProcess.run(["compile", rules.path, "-o", folder.appendingPathComponent("r.aasac").path], folder: folder)
        XCTAssertEqual(compile.status, 0, compile.summary)
        XCTAssertTrue(compile.stderr.contains("aasa compile: 3 domains (2 could not be used: their URLs get error records), "), compile.summary)
        XCTAssertTrue(compile.stderr.contains("cannot use the document of untouched.test"), compile.summary)
        XCTAssertTrue(compile.stderr.contains("(automata: 1 prebuilt DFA table, 0 lazy; 1 distinct body)"), compile.summary)
    }
}

/// A tiny deterministic generator, so the stream is the same on every run.
struct LinearCongruential {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
