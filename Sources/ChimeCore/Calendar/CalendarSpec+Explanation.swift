/// Why a calendar event that does not parse failed, in the words of its author's likely mistake: a misspelt or
/// misplaced word, quotes around the whole event, a misspelt zone.
extension CalendarSpec {
    /// The words that stand for a whole event (`daily` is `*-*-* 00:00:00`).
    private static let shorthands: Set<String> = [
        "minutely", "hourly", "daily", "weekly", "monthly", "quarterly", "semiannually", "yearly", "annually",
    ]
    /// The names a calendar event may hold where a misspelling stops the parse: weekdays and shorthands.
    private static let knownWords = [
        "Monday", "Mon", "Tuesday", "Tue", "Wednesday", "Wed", "Thursday", "Thu", "Friday", "Fri", "Saturday", "Sat",
        "Sunday", "Sun", "minutely", "hourly", "daily", "weekly", "monthly", "quarterly", "semiannually", "yearly",
        "annually",
    ]

    /// `error`, explained when the event's text shows a likely mistake; otherwise `error` as it is. Asked only
    /// after a parse failed, so it may look things up (zone names) that a parse never needs.
    static func explaining(_ error: CalendarSpecError, in body: [UInt8], zones: ZoneDatabase) -> CalendarSpecError {
        if let quote = body.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            // Unit files take a value as written, quotes included, as systemd does for OnCalendar=.
            let unquoted = String(decoding: body.dropFirst().prefix { $0 != quote }, as: UTF8.self)
            return CalendarSpecError(
                column: 1, reason: "Quotes are not part of a calendar event; write it without them: '\(unquoted)'")
        }
        if let zone = misspeltZone(in: body, zones: zones) { return zone }
        return explainingWord(error, in: body)
    }

    /// The last word of `body` when it looks like a zone name (`Region/City`) that is not installed.
    private static func misspeltZone(in body: [UInt8], zones: ZoneDatabase) -> CalendarSpecError? {
        guard let space = body.lastIndex(of: UInt8(ascii: " ")) else { return nil }
        let word = String(decoding: body[(space + 1)...], as: UTF8.self)
        guard word.contains("/"), word.first?.isLetter == true, ZoneDatabase.isWellFormedName(word) else {
            return nil
        }
        return CalendarSpecError(
            column: space + 2,
            reason: "Unknown time zone '\(word)'"
                + (zones.suggestion(for: word).map { "; did you mean '\($0)'?" } ?? ""))
    }

    /// `error`, saying which word was not understood and what it likely meant, when it stopped at a word of
    /// letters (`Tursday`, `weekdays`, `dialy`); otherwise `error` as it is.
    private static func explainingWord(_ error: CalendarSpecError, in body: [UInt8]) -> CalendarSpecError {
        func isLetter(_ byte: UInt8) -> Bool {
            lowercased(byte) >= UInt8(ascii: "a") && lowercased(byte) <= UInt8(ascii: "z")
        }
        var start = min(error.column - 1, body.count)
        guard start < body.count, isLetter(body[start]) else { return error }
        while start > 0 && isLetter(body[start - 1]) { start -= 1 }
        var end = start
        while end < body.count && isLetter(body[end]) { end += 1 }
        let word = String(decoding: body[start..<end], as: UTF8.self)
        let meant: String?
        switch word.lowercased() {
        case "weekday", "weekdays", "workday", "workdays": meant = "Mon..Fri"
        case "weekend", "weekends": meant = "Sat,Sun"
        default: meant = Suggestion.closest(to: word, among: knownWords)
        }
        guard let meant else { return CalendarSpecError(column: start + 1, reason: "Unknown word '\(word)'") }
        // A known word in the wrong place: what it means there, not itself as a suggestion.
        if meant.lowercased() == word.lowercased() {
            let reason =
                shorthands.contains(word.lowercased())
                ? "'\(word)' is a whole calendar event on its own and takes no other fields; give them instead "
                    + "('*-*-* 08:00' is every day at 08:00, 'Mon *-*-* 08:00' every Monday)"
                : "The weekday '\(word)' comes first, before the date and the time ('\(word) *-*-* 08:00')"
            return CalendarSpecError(column: start + 1, reason: reason)
        }
        return CalendarSpecError(column: start + 1, reason: "Unknown word '\(word)'; did you mean '\(meant)'?")
    }
}
