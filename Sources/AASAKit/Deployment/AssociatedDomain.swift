/// One entry of an app's `com.apple.developer.associated-domains` entitlement, such as
/// `applinks:example.com?mode=developer`.
///
/// `aasa entitlements` checks the other half of a universal link: the app claims the domain,
/// and the domain's document must name the app. A wildcard entry (`*.example.com`) is served by
/// the document of the domain after the wildcard; the mode says who fetches the document:
/// `developer` devices ask the origin directly, `managed` ones go through the organisation's
/// device management, every other device reads Apple's CDN.
public struct AssociatedDomain: Sendable, Equatable {
    /// `applinks`, `webcredentials`, `activitycontinuation`, `appclips`, …
    public var service: String
    /// The host as written, lowercased, without `*.`.
    public var domain: String
    public var wildcard: Bool
    public var port: Int?
    /// `developer`, `managed` or `developer+managed`, when given.
    public var mode: String?

    static let modes = ["developer", "managed", "developer+managed"]

    /// Parses an entry; the error says what is wrong with it.
    public static func parse(_ entry: String) -> Result<AssociatedDomain, DomainNameError> {
        guard let colon = entry.firstIndex(of: ":"), colon != entry.startIndex else {
            return .failure(DomainNameError(message: "'\(VisibleText.cut(entry))' is not SERVICE:DOMAIN"))
        }
        let service = String(entry[..<colon])
        var rest = String(entry[entry.index(after: colon)...])
        var mode: String?
        if let question = rest.firstIndex(of: "?") {
            let query = String(rest[rest.index(after: question)...])
            rest = String(rest[..<question])
            guard query.hasPrefix("mode="), modes.contains(String(query.dropFirst(5))) else {
                return .failure(
                    DomainNameError(message: "'\(VisibleText.cut(entry))': the only query is ?mode=developer, managed or developer+managed"))
            }
            mode = String(query.dropFirst(5))
        }
        if rest.contains("/") {
            // A URL pasted as the domain: the validator names the host it meant.
            return .failure(DomainNameError(message: "'\(VisibleText.cut(entry))': \(DomainName.validate(rest).failureMessage ?? "not a domain")"))
        }
        if rest.hasPrefix("[") {
            // An IPv6 literal's colons are no port: an address is no associated domain.
            return .failure(DomainNameError(message: "'\(VisibleText.cut(entry))': an IP address, not a domain name"))
        }
        var port: Int?
        if let portColon = rest.firstIndex(of: ":") {
            let digits = rest[rest.index(after: portColon)...]
            // One port, digits only: `example.com:443:443` is a bad port, not a bad domain.
            guard digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits), (1...65_535).contains(value) else {
                return .failure(DomainNameError(message: "'\(VisibleText.cut(entry))' has a bad port (DOMAIN:PORT, PORT from 1 to 65535)"))
            }
            port = value
            rest = String(rest[..<portColon])
        }
        let wildcard = rest.hasPrefix("*.")
        if wildcard { rest.removeFirst(2) }
        switch DomainName.validate(rest) {
        case .success(let domain):
            return .success(AssociatedDomain(service: service, domain: domain, wildcard: wildcard, port: port, mode: mode))
        case .failure(let error):
            return .failure(DomainNameError(message: "'\(VisibleText.cut(entry))': \(error.message)"))
        }
    }
}

extension Result where Failure == DomainNameError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
