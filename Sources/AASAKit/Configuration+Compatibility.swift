// The names the limits had before they moved into one `Configuration` (#7), kept so that work
// written against them in parallel branches still builds after merging, with a deprecation
// warning that names the new spelling. Delete this file once no caller uses them.

@available(*, deprecated, renamed: "Configuration")
public typealias CompileConfiguration = Configuration

extension Configuration {
    @available(*, deprecated, renamed: "automata")
    public var lazyDFA: Automata {
        get { automata }
        set { automata = newValue }
    }

    @available(*, deprecated, renamed: "automata.maxNFAStates")
    public var maxNFAStates: Int {
        get { automata.maxNFAStates }
        set { automata.maxNFAStates = newValue }
    }

    @available(*, deprecated, renamed: "document.maxBytes")
    public var maxDocumentBytes: Int {
        get { document.maxBytes }
        set { document.maxBytes = newValue }
    }

    @available(*, deprecated, renamed: "document.maxJSONDepth")
    public var maxJSONDepth: Int {
        get { document.maxJSONDepth }
        set { document.maxJSONDepth = newValue }
    }

    @available(*, deprecated, renamed: "input.maxURLBytes")
    public var maxURLBytes: Int {
        get { input.maxURLBytes }
        set { input.maxURLBytes = newValue }
    }
}
