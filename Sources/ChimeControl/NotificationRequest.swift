import ChimeCore
import Foundation

/// What `chimectl add` was asked to schedule, written as the notification file that chimed will read.
///
/// The file has to mean the same whenever it is read (at every rebuild, after restarts), so everything relative
/// is fixed when the request is made: `--in` and a relative `--at`, `--from` or `--until` (`tomorrow`, `+1h`)
/// become absolute instants in UTC; an `--every` without `--from` is anchored one interval from now (the first
/// occurrence is then, as with an iOS time-interval trigger), an `--rrule` without `--from` starts where its time
/// of day starts (`ruleStart`), and a `--count` without `--from` counts from now. `--at` and the others also take
/// `tomorrow 08:00`, which systemd's timestamps do not.
///
/// Values are written as given, or refused (a usage error) when a notification file cannot hold them; the one
/// exception is `--body`, whose line breaks become continuation lines and so read back as spaces.
struct NotificationRequest {
    /// A one-shot instant asked for with `--in` or `--at`, which must lie in the future.
    struct Instant {
        var option: String
        var given: String
        var date: Date
    }

    let id: String
    private(set) var text = ""
    private(set) var instants: [Instant] = []
    /// The body as it will read back, when that differs from `--body` (line breaks, surrounding white space).
    private(set) var foldedBody: String?
    /// The option each line of `text` was written for, so that a problem the loader finds there names the option.
    private(set) var optionOfLine: [Int: String] = [:]

    static let valued: Set<String> = [
        "in", "at", "timezone", "on-calendar", "every", "count", "from", "until", "title", "body", "icon", "sound",
        "ring", "volume", "fade-in", "speak", "language", "urgency", "interruption-level", "action", "badge", "info",
        "deliver", "thread",
        "repeat", "rrule", "rdate",
        "exdate", "randomized-delay", "accuracy",
    ]

    /// The options that say when it fires, one of which is required.
    static let whenOptions = ["in", "at", "on-calendar", "every", "rrule", "rdate"]

    /// Builds the file for `id` from the options of `chimectl add`.
    init(_ arguments: ParsedArguments, id: String, context: CommandContext) throws(UsageError) {
        self.id = id
        guard let title = arguments.value("title") else { throw UsageError("--title is required") }
        guard !title.isEmpty else { throw UsageError("--title cannot be empty") }
        guard Self.whenOptions.contains(where: { !arguments.all($0).isEmpty }) else {
            let named = Self.whenOptions.map { "--" + $0 }
            throw UsageError("say when: " + named.dropLast().joined(separator: ", ") + " or " + named.last!)
        }
        let now = context.now
        // Relative times are read in the zone the file will be read in.
        let zone =
            arguments.value("timezone").flatMap { name in
                context.zones.isValidName(name) ? try? context.zones.rules(named: name) : nil
            } ?? context.localZone

        var writer = UnitFileWriter()
        writer.comment(
            "Added with 'chimectl add' on \(Timestamp.format(now, zone: context.localZone) ?? "?").\n"
                + "'chimectl cancel \(id)' removes it.")
        writer.section("Notification")
        var lines: [Int: String] = [:]
        try Self.assign(&writer, "Title", title, option: "--title", lines: &lines)
        if let body = arguments.value("body"), !body.isEmpty {
            lines[writer.lineCount + 1] = "--body"
            do {
                let folded = try writer.assign("Body", foldingLines: body)
                if folded != body { foldedBody = folded }
            } catch {
                throw UsageError("invalid --body: \(error)")
            }
        }
        try Self.assign(&writer, "Icon", arguments.value("icon"), option: "--icon", lines: &lines)
        try Self.assign(&writer, "Sound", arguments.value("sound"), option: "--sound", lines: &lines)
        try Self.assign(&writer, "Ring", arguments.value("ring"), option: "--ring", lines: &lines)
        try Self.assign(&writer, "Volume", arguments.value("volume"), option: "--volume", lines: &lines)
        try Self.assign(&writer, "FadeIn", arguments.value("fade-in"), option: "--fade-in", lines: &lines)
        try Self.assign(&writer, "Speak", arguments.value("speak"), option: "--speak", lines: &lines)
        try Self.assign(&writer, "Language", arguments.value("language"), option: "--language", lines: &lines)
        try Self.assign(&writer, "Thread", arguments.value("thread"), option: "--thread", lines: &lines)
        try Self.assign(&writer, "Repeat", arguments.value("repeat"), option: "--repeat", lines: &lines)
        try Self.assign(
            &writer, "InterruptionLevel", arguments.value("interruption-level"), option: "--interruption-level",
            lines: &lines)
        try Self.assign(&writer, "Urgency", arguments.value("urgency"), option: "--urgency", lines: &lines)
        for action in arguments.all("action") {
            try Self.assign(&writer, "Action", action, option: "--action", lines: &lines)
        }
        try Self.assign(&writer, "Badge", arguments.value("badge"), option: "--badge", lines: &lines)
        for info in arguments.all("info") { try Self.assign(&writer, "Info", info, option: "--info", lines: &lines) }
        if let deliver = arguments.value("deliver") {
            try Self.assign(
                &writer, "Deliver", try Self.backends(deliver).joined(separator: " "), option: "--deliver",
                lines: &lines)
        }

        // The trigger is gathered first, so that a comment before it can say which times were fixed.
        var trigger: [(key: String, value: String, option: String)] = []
        var fixedNotes: [String] = []
        if arguments.value("in") != nil && arguments.value("at") != nil {
            throw UsageError("--in and --at both say when it fires once: give one of them")
        }
        // `--in` or `--at` with a series (`--every`, `--rrule`) and no `--from` is when the series starts: its first
        // occurrence, not a one-shot before the series (which From= would leave out).
        var once: (value: String, option: String)?
        if let text = arguments.value("in") {
            let span: Timespan
            do {
                span = try Timespan.parse(text)
            } catch {
                throw UsageError("invalid --in '\(text)': \(error)")
            }
            let (sum, overflow) = now.epochMicroseconds.addingReportingOverflow(Int64(clamping: span.microseconds))
            guard !span.isInfinite, !overflow else {
                throw UsageError("invalid --in '\(text)': a notification must fire at a finite time")
            }
            let date = Date(epochMicroseconds: sum)
            once = (try Self.absolute(date, option: "--in"), "--in")
            instants.append(Instant(option: "--in", given: text, date: date))
            fixedNotes.append("--in '\(text)'")
        }
        if let text = arguments.value("at") {
            let (value, date) = try Self.fixed(text, option: "--at", now: now, zone: zone, zones: context.zones)
            once = (value, "--at")
            if let date { instants.append(Instant(option: "--at", given: text, date: date)) }
            if value != text { fixedNotes.append("--at '\(text)'") }
        }
        let every = arguments.value("every")
        let startsSeries = (every != nil || !arguments.all("rrule").isEmpty) && arguments.value("from") == nil
        if let once, !startsSeries { trigger.append(("At", once.value, once.option)) }
        for calendar in arguments.all("on-calendar") { trigger.append(("OnCalendar", calendar, "--on-calendar")) }
        if let every { trigger.append(("Every", every, "--every")) }
        for (option, key) in [("rrule", "RRule"), ("rdate", "RDate"), ("exdate", "ExDate")] {
            for value in arguments.all(option) { trigger.append((key, value, "--\(option)")) }
        }
        if let text = arguments.value("from") {
            let (value, _) = try Self.fixed(text, option: "--from", now: now, zone: zone, zones: context.zones)
            trigger.append(("From", value, "--from"))
            if value != text { fixedNotes.append("--from '\(text)'") }
        } else if let once, startsSeries {
            trigger.append(("From", once.value, once.option))
            fixedNotes.append("From= the time of \(once.option), the series' first occurrence")
        } else if let every, let span = try? Timespan.parse(every), span.microseconds > 0, !span.isInfinite {
            let (anchor, overflow) = now.epochMicroseconds.addingReportingOverflow(Int64(clamping: span.microseconds))
            if !overflow {
                let value = try Self.absolute(Date(epochMicroseconds: anchor), option: "--every")
                trigger.append(("From", value, "--every"))
                fixedNotes.append("From= one --every after adding")
            }
        } else if !arguments.all("rrule").isEmpty {
            let start = Self.ruleStart(for: arguments.all("rrule"), now: now, zone: zone)
            trigger.append(("From", try Self.absolute(start, option: "--rrule"), "--rrule"))
            fixedNotes.append(
                start == now
                    ? "From= the time of adding, for --rrule"
                    : "From= the time of adding rounded up to where --rrule's time of day starts")
        } else if arguments.value("count") != nil {
            trigger.append(("From", try Self.absolute(now, option: "--count"), "--count"))
            fixedNotes.append("From= the time of adding, for --count")
        }
        if let text = arguments.value("until") {
            let (value, _) = try Self.fixed(text, option: "--until", now: now, zone: zone, zones: context.zones)
            trigger.append(("Until", value, "--until"))
            if value != text { fixedNotes.append("--until '\(text)'") }
        }
        if let count = arguments.value("count") { trigger.append(("Count", count, "--count")) }
        if let name = arguments.value("timezone") { trigger.append(("TimeZone", name, "--timezone")) }
        if arguments.has("persistent") { trigger.append(("Persistent", "yes", "--persistent")) }
        if let span = arguments.value("randomized-delay") {
            trigger.append(("RandomizedDelaySec", span, "--randomized-delay"))
        }
        if arguments.has("fixed-random-delay") { trigger.append(("FixedRandomDelay", "yes", "--fixed-random-delay")) }
        if let span = arguments.value("accuracy") { trigger.append(("AccuracySec", span, "--accuracy")) }
        if arguments.has("wake-system") { trigger.append(("WakeSystem", "yes", "--wake-system")) }

        writer.section("Trigger")
        if !fixedNotes.isEmpty { writer.comment("Fixed when added: \(fixedNotes.joined(separator: "; ")).") }
        for entry in trigger { try Self.assign(&writer, entry.key, entry.value, option: entry.option, lines: &lines) }
        text = writer.text
        optionOfLine = lines
    }

    /// Writes `key=value` unless `value` is nil, naming `option` when the value cannot be written.
    private static func assign(
        _ writer: inout UnitFileWriter, _ key: String, _ value: String?, option: String, lines: inout [Int: String]
    ) throws(UsageError) {
        guard let value else { return }
        lines[writer.lineCount + 1] = option
        do {
            try writer.assign(key, value)
        } catch {
            throw UsageError("invalid \(option) '\(value)': \(error)")
        }
    }

    /// `--deliver journal,desktop`: backend names, separated by commas or white space.
    static func backends(_ list: String) throws(UsageError) -> [String] {
        let names = list.split { $0 == "," || $0 == " " || $0 == "\t" }.map(String.init)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !names.isEmpty, names.allSatisfy({ $0.allSatisfy(allowed.contains) }) else {
            throw UsageError("invalid --deliver '\(list)': expected backend names such as journal,stdout")
        }
        return names
    }

    /// A timestamp option as it goes into the file: as given when it is absolute, else the instant it names now.
    /// Text that does not parse is kept, for the loader to report as it reports a file's mistakes.
    static func fixed(
        _ text: String, option: String, now: Date, zone: ZoneRules, zones: ZoneDatabase
    ) throws(UsageError) -> (value: String, date: Date?) {
        guard
            let reading = (try? Timestamp.read(text, now: now, localZone: zone, zones: zones))
                ?? dayAndTime(text, now: now, zone: zone, zones: zones)
        else {
            return (text, nil)
        }
        guard reading.dependsOnNow else { return (text, reading.date) }
        return (try absolute(reading.date, option: option), reading.date)
    }

    /// `tomorrow 08:00`, `today 18:30`: what people type, which systemd's timestamps do not take (a day word stands
    /// alone there). Read as the date of that day in `zone` followed by the rest; `nil` for anything else.
    private static func dayAndTime(
        _ text: String, now: Date, zone: ZoneRules, zones: ZoneDatabase
    ) -> (date: Date, dependsOnNow: Bool)? {
        guard let space = text.firstIndex(of: " ") else { return nil }
        let word = text[..<space].lowercased()
        guard ["yesterday", "today", "tomorrow"].contains(word),
            let day = try? Timestamp.read(word, now: now, localZone: zone, zones: zones)
        else { return nil }
        let local = zone.localTime(at: day.date.epochMicroseconds / 1_000_000)
        let date = String(format: "%04d-%02d-%02d", local.year, local.month, local.day)
        guard let reading = try? Timestamp.read(date + text[space...], now: now, localZone: zone, zones: zones)
        else { return nil }
        return (reading.date, true)
    }

    /// `Tue 2026-12-01 06:00:00 UTC`, with microseconds only when there are any: a form `At=` reads back exactly.
    static func absolute(_ date: Date, option: String) throws(UsageError) -> String {
        let precision: Timestamp.Precision = date.epochMicroseconds % 1_000_000 == 0 ? .seconds : .microseconds
        guard let text = Timestamp.formatUTC(date, precision: precision), text != Timestamp.unformattable else {
            throw UsageError("invalid \(option): the time it names is out of range")
        }
        return text
    }
}
