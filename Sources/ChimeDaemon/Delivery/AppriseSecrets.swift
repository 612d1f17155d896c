/// What of an apprise URL may not appear in a message: everything but its scheme. Services put their secrets in
/// different places (Telegram's bot token is where a host would be, Pushover's user key where a user would be, ntfy's
/// topic in the path), so the whole rest is hidden, and each of its parts where apprise prints them apart (the host,
/// the port, the user, the password, every path segment and query value): a failure names the service only.
struct AppriseSecrets: Sendable {
    private let words: [String]

    init(urls: [String]) {
        var words: [String] = []
        for url in urls {
            guard let schemeEnd = url.range(of: "://") else {
                words.append(url)
                continue
            }
            var rest = url[schemeEnd.upperBound...]
            words.append(String(rest))
            var query = Substring("")
            if let mark = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: mark)...]
                rest = rest[..<mark]
            }
            let authority = rest.prefix { $0 != "/" }
            words += authority.split(whereSeparator: { $0 == "@" || $0 == ":" }).map(String.init)
            words += rest.dropFirst(authority.count).split(separator: "/").map(String.init)
            words += query.split(separator: "&").compactMap { $0.split(separator: "=", maxSplits: 1).last }.map(
                String.init)
        }
        // Longest first, so that a secret that contains another is hidden whole.
        self.words = Set(words.filter { $0.count >= 2 }).sorted { $0.count > $1.count }
    }

    /// `text` with every secret part replaced by `***`.
    func redact(_ text: String) -> String {
        words.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}
