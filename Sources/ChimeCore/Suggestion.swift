/// "Did you mean …?": the candidate closest to a misspelt word, for messages about unknown names.
public enum Suggestion {
    /// The candidate that `word` most likely misspells, or `nil` when none is close.
    ///
    /// Close means an edit distance (insertions, deletions, substitutions and swaps of neighbouring letters,
    /// ignoring case) of at most a third of the word's length, and at least 1: `Titel` for `Title`,
    /// `notification` for `Notification`, `Tursday` for `Thursday`.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let folded = Array(word.lowercased())
        let limit = max(1, folded.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(folded, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// `" Did you mean 'X'?"`, or the empty string: to end a message with. When only the case differs, it says
    /// that case matters.
    public static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String {
        didYouMean(word, meant: closest(to: word, among: candidates))
    }

    /// `" Did you mean 'meant'?"` for a suggestion found otherwise, or the empty string when there is none.
    public static func didYouMean(_ word: String, meant: String?) -> String {
        guard let meant else { return "" }
        let caseOnly = meant.lowercased() == word.lowercased()
        return " Did you mean '\(meant)'?" + (caseOnly ? " Names are case-sensitive." : "")
    }

    /// `" KEY= belongs in [Section]."` when `key` is a key of another of the `sections` (keys by section name),
    /// or the empty string: the likeliest mistake with a key unknown where it stands.
    public static func sectionOf(_ key: String, among sections: [String: Set<String>]) -> String {
        let homes = sections.filter { $0.value.contains(key) }.keys.sorted()
        guard !homes.isEmpty else { return "" }
        let named = homes.map { "[\($0)]" }
        let list = named.count == 1 ? named[0] : named.dropLast().joined(separator: ", ") + " or " + named.last!
        return " \(key)= belongs in \(list)."
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
