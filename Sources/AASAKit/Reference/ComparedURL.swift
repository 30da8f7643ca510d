/// One URL's components as the rules of each text mode compare them (SPEC 6, 7, 11, 12):
/// normalised once per mode, when a rule of that mode first needs them, and shared by every such
/// rule until the URL is decided.
///
/// A component's compared text depends on the rule's two flags only, so computing it once per
/// mode changes no decision. When each rule normalised the URL for itself, 14 000 rules
/// `{"#": ""}` folded a 64 KB fragment 14 000 times (over 20 s and 464 MB for one URL, each
/// rule's copy kept in its evaluation); the evaluations now keep this storage, shared.
final class ComparedURL {
    let url: SplitURL
    /// Whether the document is taken to be served by the URL's own host (`ServingHost.urlHost`).
    let onItsHost: Bool
    private var byMode: [ReferenceText: Texts] = [:]

    init(_ url: SplitURL, onItsHost: Bool) {
        self.url = url
        self.onItsHost = onItsHost
    }

    /// One compared text, with its scalars: what a glob matches, and what sizes its rows.
    struct Text {
        let string: String
        let scalars: [Unicode.Scalar]

        init(_ string: String) {
            self.string = string
            scalars = Array(string.unicodeScalars)
        }
    }

    /// The values of the query items of one name, in URL order.
    struct Values {
        let values: [Text]
        /// The values as `explain` shows them, `" & "` between two.
        let joined: String
        /// Their scalars in all.
        let scalars: Int
    }

    /// Every component as the rules of one mode compare it.
    struct Texts {
        /// The path, its trailing run of `/` dropped (SPEC 6).
        let path: Text
        let query: Text
        /// The query's items by name, names compared scalar by scalar (String == would equate
        /// NFC and NFD spellings).
        let items: [ExactString: Values]
        let fragment: Text

        init(_ url: SplitURL, mode: ReferenceText) {
            path = Text(PathComparison.trimmingTrailingSlashes(mode.normalize(url.path)))
            query = Text(mode.normalize(url.query))
            fragment = Text(mode.normalize(url.fragment))
            // Split on the raw text first, then normalise each name and value: `%26` and `%3D`
            // never split (SPEC 7). An empty query has no items. Scalar-wise, not
            // Character-wise: "&" followed by a combining mark is one Character but still two
            // scalars, and SPEC splits on the "&" scalar.
            var values: [ExactString: [Text]] = [:]
            var names: [ExactString] = []
            if !url.query.isEmpty {
                for item in url.query.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false) {
                    let name: String
                    let value: String
                    if let equals = item.firstIndex(of: "=") {
                        name = mode.normalize(String(Substring(item[..<equals])))
                        value = mode.normalize(String(Substring(item[item.index(after: equals)...])))
                    } else {
                        (name, value) = (mode.normalize(String(Substring(item))), "")
                    }
                    let key = ExactString(name)
                    if values[key] == nil { names.append(key) }
                    values[key, default: []].append(Text(value))
                }
            }
            var items: [ExactString: Values] = [:]
            for name in names {
                let texts = values[name] ?? []
                items[name] = Values(
                    values: texts, joined: texts.map(\.string).joined(separator: " & "),
                    scalars: texts.reduce(0) { $0 + $1.scalars.count })
            }
            self.items = items
        }
    }

    /// The components as the rules of `mode` compare them, normalised when first asked for,
    /// after `work` is charged for it.
    func texts(_ mode: ReferenceText, work: inout ReferenceWork) throws(URLSplitError) -> Texts {
        if let texts = byMode[mode] { return texts }
        try work.charge(normalizationCells)
        let texts = Texts(url, mode: mode)
        byMode[mode] = texts
        return texts
    }

    /// What normalising the URL for one mode may cost, in glob table cells: decoding, NFC and
    /// folding read each byte of a component a bounded number of times, and the query is
    /// normalised twice, as text and as items, each item a name and a value of their own.
    var normalizationCells: Int {
        let bytes = ReferenceWork.sum(url.path.utf8.count, 2 * url.query.utf8.count, url.fragment.utf8.count, 3)
        let items = url.query.isEmpty ? 0 : url.query.utf8.count { $0 == UInt8(ascii: "&") } + 1
        return ReferenceWork.sum(
            ReferenceWork.product(bytes, Self.cellsPerNormalizedByte), ReferenceWork.product(items, Self.cellsPerItem))
    }

    /// About what they took, at about a nanosecond a cell (`aasa match --engine reference` of a
    /// 64 KB URL against a rule in each mode): a component about 120 ns a byte in each mode
    /// (folding, scalar by scalar, most of it), a query of 64 000 empty items about 450 ns an item.
    static let cellsPerNormalizedByte = 128
    static let cellsPerItem = 320
}
