import Foundation

/// Turns parsed notification files into validated `ScheduledNotification`s, reporting every problem with its
/// file, line and column.
///
/// Unknown sections and keys are warnings (the file still loads); a value that breaks a rule is an error, and a
/// file with any error is not loaded.
public struct NotificationLoader: Sendable {
    /// The zone of times without a zone, unless a file sets `TimeZone=`.
    public var systemZone: ZoneRules
    public var zones: ZoneDatabase
    /// Shares the `OnCalendar=` events of notifications with the same ones, when set (see `CalendarCache`).
    public var calendarCache: CalendarCache?
    /// The backends `Deliver=` may name, when known (chimed.conf's and the built-in ones): another name is a
    /// warning, since deliveries to it fail.
    public var knownBackends: [String]?
    /// Why this chimed cannot wake the system, when it cannot (it lacks CAP_WAKE_ALARM): `WakeSystem=yes` is then
    /// an error that says so and what to grant.
    public var wakeSystemRefusal: String?
    /// The shortest time apart one notification may fire (`Trigger.keyFiringMoreOftenThan`), and what sets it, for
    /// the error: a notification that could fire more often is not loaded.
    public var minimumInterval = InputLimits.defaultMinimumInterval
    public var minimumIntervalSetting = "MinimumInterval= in chimed.conf"
    /// The largest `COUNT` an `RRule=` may have, when bounded: what one rule may cost to walk.
    public var maximumRecurrenceCount: Int?

    public init(systemZone: ZoneRules, zones: ZoneDatabase, calendarCache: CalendarCache? = nil) {
        self.systemZone = systemZone
        self.zones = zones
        self.calendarCache = calendarCache
    }

    /// The outcome for one file: the notification (unless it had errors or is masked) and what was found.
    public struct Result: Sendable {
        public var id: String
        public var notification: ScheduledNotification?
        public var diagnostics: [UnitFileDiagnostic]
        public var isMasked = false

        public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

        /// Whether it gave a notification, told where it lies: comparing the optional with `nil` copies it whole.
        public var gaveNotification: Bool {
            if case .some = notification { true } else { false }
        }

        public init(
            id: String, notification: ScheduledNotification? = nil, diagnostics: [UnitFileDiagnostic] = [],
            isMasked: Bool = false
        ) {
            self.id = id
            self.notification = notification
            self.diagnostics = diagnostics
            self.isMasked = isMasked
        }
    }

    public static let knownKeys: [String: Set<String>] = Dictionary(grouping: NotificationKey.allCases, by: \.section)
        .mapValues { Set($0.map(\.rawValue)) }

    /// The keys whose value is a boolean: generators and the application interface may give them as one.
    public static let booleanKeys = Set(NotificationKey.allCases.filter(\.takesBoolean).map(\.rawValue))

    /// The keys that may be given more than once, each bounded by `InputLimits.maximumRepeats`.
    public static let repeatableKeys: [(section: String, keys: [String])] = ["Notification", "Trigger"].map {
        section in
        (section, NotificationKey.allCases.filter { $0.isRepeatable && $0.section == section }.map(\.rawValue))
    }

    /// Loads every file a search found.
    public func load(_ search: NotificationSearch) -> [Result] {
        search.files.map(load)
    }

    /// Loads one found file (its drop-ins already applied).
    public func load(_ file: NotificationFile) -> Result {
        switch file.content {
        case .masked:
            return Result(id: file.id, notification: nil, diagnostics: [], isMasked: true)
        case .loaded(let unit):
            return load(unit, id: file.id, path: file.path)
        }
    }

    /// Validates `unit` as the notification `id`.
    public func load(_ unit: UnitFile, id: String, path: String) -> Result {
        var result = load(NotificationAssignments(unit), id: id, path: path, diagnostics: unit.diagnostics)
        result.diagnostics = unit.explainingTrailingComments(result.diagnostics).sortedByPlace()
        return result
    }

    /// Validates `assignments` as the notification `id`, after `diagnostics` already found. The messages of a
    /// generator's line read straight from its bytes all have the line's location: a caller that gets any reads the
    /// line again in full to say where.
    func load(
        _ assignments: NotificationAssignments, id: String, path: String, diagnostics: [UnitFileDiagnostic] = []
    ) -> Result {
        var reader = NotificationReader(assignments, path: path, loader: self)
        return Self.load(assignments, id: id, path: path, diagnostics: diagnostics, with: &reader)
    }

    /// Validates `assignments` as the notification `id` with `reader`, made once for many with this loader: a
    /// reader made for each of a million generated lines copied the loader each time, and every thread retained
    /// and released the same zones and caches it holds.
    static func load(
        _ assignments: NotificationAssignments, id: String, path: String, diagnostics: [UnitFileDiagnostic] = [],
        with reader: inout NotificationReader
    ) -> Result {
        reader.start(assignments, path: path, diagnostics: diagnostics)
        let notification = reader.read(id: id)
        let hasErrors = reader.diagnostics.contains { $0.severity == .error }
        defer { reader.finish() }
        return Result(id: id, notification: hasErrors ? nil : notification, diagnostics: reader.diagnostics)
    }

    /// What is wrong with an id for which `isValidID(_:)` is false.
    static func invalidIDMessage(_ id: String) -> String {
        "Invalid notification name '\(id)': use letters, digits and '-_.@:'."
    }

    /// The most time spans `Repeat=` may list.
    public static let maximumRepeats = 32

    /// Whether `name` can name a thread: a name a person gives a group (`Linear Algebra`, `chat:alice`), shown in
    /// lists and hints, so one line of printable text of at most 255 bytes.
    public static func isValidThread(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether `id` can name a notification: letters, digits and `-_.@:`, at most 255 bytes, not starting with `.`.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 255, bytes.first != UInt8(ascii: ".") else { return false }
        // Byte by byte: asked once per notification, a million times for a large generator.
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "@"), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }
}

/// Reads one notification's assignments, collecting diagnostics as it goes.
struct NotificationReader {
    private(set) var assignments: NotificationAssignments
    private(set) var path: String
    let loader: NotificationLoader
    var diagnostics: [UnitFileDiagnostic] = []

    init(_ assignments: NotificationAssignments, path: String, loader: NotificationLoader) {
        self.assignments = assignments
        self.path = path
        self.loader = loader
    }

    /// Makes this reader read `assignments` next, with `diagnostics` already found.
    mutating func start(_ assignments: NotificationAssignments, path: String, diagnostics: [UnitFileDiagnostic]) {
        self.assignments = assignments
        self.path = path
        self.diagnostics = diagnostics
    }

    /// Lets go of what was read: a generator's reading thread reuses one array of assignments for every line, and
    /// held here as well, that array was made anew for each.
    mutating func finish() {
        assignments = NotificationAssignments(unplaced: [], line: UnitFileLocation(file: ""))
        diagnostics = []
    }

    mutating func error(_ location: UnitFileLocation, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.error, at: location, message))
    }

    mutating func warning(_ location: UnitFileLocation, _ message: String) {
        diagnostics.append(UnitFileDiagnostic(.warning, at: location, message))
    }

    /// The value of a single-valued key, `nil` when unset or reset to its default by an empty assignment.
    func single(_ key: NotificationKey) -> NotificationAssignment? {
        assignments.single(key)
    }

    /// The assignments of a list-valued key, after systemd's reset rule.
    func values(_ key: NotificationKey) -> [NotificationAssignment] {
        assignments.values(key)
    }

    func location(of entry: NotificationAssignment) -> UnitFileLocation {
        assignments.location(of: entry)
    }

    func valueLocation(of entry: NotificationAssignment) -> UnitFileLocation {
        assignments.valueLocation(of: entry)
    }

    mutating func read(id: String) -> ScheduledNotification {
        let fileLocation = UnitFileLocation(file: path)
        if !NotificationLoader.isValidID(id) {
            error(fileLocation, NotificationLoader.invalidIDMessage(id))
        }
        // A value or a list beyond its bound is the only error reported: the rest is not read, so that a
        // notification with a million instants costs no more than counting them.
        guard checkUnknownAndBounds() else {
            return ScheduledNotification(id: id, title: "", trigger: Trigger())
        }

        var trigger = Trigger()
        let zone = readTimeZone(into: &trigger)
        readInstants(into: &trigger, zone: zone)
        readCalendars(into: &trigger, zone: zone)
        readRecurrence(into: &trigger, zone: zone)
        readWindow(into: &trigger, zone: zone)
        checkFrequency(of: trigger)
        if let entry = single(.persistent) {
            trigger.isPersistent = boolean(entry) ?? false
        }
        // A file that could not be read, or a line that could not be parsed, already has its error: that it then
        // lacks a trigger or a title follows from it and would only bury the cause.
        let isComplete = !assignments.hasErrorsOfItsOwn
        let hasTrigger = [.at, .onCalendar, .rrule, .rdate, .every].contains { assignments.has($0) }
        if isComplete && !hasTrigger {
            let section = assignments.location(ofSection: "Trigger") ?? fileLocation
            error(section, "No trigger: set At=, OnCalendar=, Every=, RRule= or RDate= in [Trigger].")
        }

        let title = single(.title)
        if isComplete && title == nil {
            let section = assignments.location(ofSection: "Notification") ?? fileLocation
            error(section, "Missing Title= in [Notification].")
        }
        var notification = ScheduledNotification(id: id, title: title?.value ?? "", trigger: trigger)
        readContent(into: &notification)
        readTiming(into: &notification)
        return notification
    }

    /// How many unknown keys and sections of one file are warned about one by one; the rest are counted in one
    /// warning, so that a file of 100,000 of them costs one screen at every rebuild.
    static let unknownNamesSaid = 5

    /// Warns of a unit's unknown sections and keys, and reports values and lists beyond `InputLimits`; `false` if
    /// any was.
    mutating func checkUnknownAndBounds() -> Bool {
        guard case .unit(let unit) = assignments.origin else { return true }
        var withinBounds = true
        var assignments = 0
        var unknown = 0
        for section in unit.sections {
            assignments += section.entries.count
            // Counting bytes is cheap for Swift's native strings: every value is checked, a million times for a
            // large generator.
            for entry in section.entries where entry.value.utf8.count > InputLimits.maximumValueLength {
                error(
                    entry.valueLocation,
                    "\(entry.key)= is \(InputLimits.grouped(entry.value.utf8.count)) bytes long, more than the "
                        + "\(InputLimits.size(InputLimits.maximumValueLength)) a value may have.")
                withinBounds = false
            }
            guard let keys = NotificationLoader.knownKeys[section.name] else {
                unknown += 1
                if unknown <= Self.unknownNamesSaid {
                    warning(
                        section.location,
                        "Unknown section '\(section.name)', ignoring."
                            + Suggestion.didYouMean(section.name, among: NotificationLoader.knownKeys.keys.sorted()))
                }
                continue
            }
            for entry in section.entries where !keys.contains(entry.key) {
                unknown += 1
                if unknown <= Self.unknownNamesSaid {
                    warning(
                        entry.location,
                        "Unknown key '\(entry.key)' in section [\(section.name)], ignoring."
                            + Suggestion.sectionOf(entry.key, among: NotificationLoader.knownKeys)
                            + Suggestion.didYouMean(entry.key, among: keys.sorted()))
                }
            }
        }
        if unknown > Self.unknownNamesSaid {
            warning(
                UnitFileLocation(file: path),
                "\(InputLimits.grouped(unknown - Self.unknownNamesSaid)) more unknown keys and sections, ignoring.")
        }
        // Only a notification with that many assignments in all can repeat one key too often.
        guard assignments > InputLimits.maximumRepeats else { return withinBounds }
        for (section, keys) in NotificationLoader.repeatableKeys {
            for key in keys {
                var count = 0
                for candidate in unit.sections where candidate.name == section {
                    for entry in candidate.entries where entry.key == key {
                        count += 1
                        if count == InputLimits.maximumRepeats + 1 {
                            error(
                                entry.location,
                                "More than \(InputLimits.grouped(InputLimits.maximumRepeats)) \(key)= assignments, the "
                                    + "most one notification may have.")
                            withinBounds = false
                        }
                    }
                }
            }
        }
        return withinBounds
    }

    mutating func readTimeZone(into trigger: inout Trigger) -> ZoneRules {
        guard let entry = single(.timeZone) else { return loader.systemZone }
        guard loader.zones.isValidName(entry.value), let rules = try? loader.zones.rules(named: entry.value) else {
            error(
                valueLocation(of: entry),
                "Unknown time zone '\(entry.value)' in TimeZone=."
                    + Suggestion.didYouMean(entry.value, meant: loader.zones.suggestion(for: entry.value)))
            return loader.systemZone
        }
        trigger.timeZone = rules
        return rules
    }

    /// A timestamp in `zone`; relative forms ("now", "tomorrow", "+5min", "07:00") are refused, since a file is
    /// read again at every reload and they would move each time.
    mutating func timestamp(_ entry: NotificationAssignment, zone: ZoneRules) -> Date? {
        // Any "now" will do: a form that depends on it is refused whatever it gives.
        let anyNow = Date(timeIntervalSince1970: 1_000_000_000)
        do {
            let reading = try Timestamp.read(entry.value, now: anyNow, localZone: zone, zones: loader.zones)
            guard !reading.dependsOnNow else {
                error(
                    valueLocation(of: entry),
                    "\(entry.name)= must be an absolute time; '\(entry.value)' depends on when the file is read.")
                return nil
            }
            return reading.date
        } catch {
            self.error(valueLocation(of: entry), "Invalid \(entry.name)= '\(entry.value)': \(error).")
            return nil
        }
    }

    mutating func readInstants(into trigger: inout Trigger, zone: ZoneRules) {
        var instants: [Date] = []
        let entries = values(.at)
        instants.reserveCapacity(entries.count)
        for entry in entries {
            if let date = timestamp(entry, zone: zone) { instants.append(date) }
        }
        trigger.instants = instants
    }

    mutating func readCalendars(into trigger: inout Trigger, zone: ZoneRules) {
        // The cache is asked with the texts as they stand: an array of the assignments is made only to parse them.
        let texts = assignments.texts(.onCalendar)
        guard !texts.isEmpty else { return }
        let key = loader.calendarCache.map { _ in CalendarCache.Key(texts, zone: zone) }
        if let key, let shared = loader.calendarCache?.calendars(for: key) {
            trigger.calendars = shared
            return
        }
        let entries = values(.onCalendar)
        for entry in entries {
            do {
                trigger.calendars.append(try CalendarSpec(entry.value, localZone: zone, zones: loader.zones))
            } catch {
                var location = valueLocation(of: entry)
                if let column = location.column { location.column = column + error.column - 1 }
                self.error(location, "Invalid OnCalendar= '\(entry.value)': \(error.reason)".endingSentence)
            }
        }
        if let key, trigger.calendars.count == entries.count, let cache = loader.calendarCache {
            trigger.calendars = cache.keep(trigger.calendars, for: key)
        }
    }

    mutating func readWindow(into trigger: inout Trigger, zone: ZoneRules) {
        if let entry = single(.every) {
            do {
                let span = try Timespan.parse(entry.value)
                if span.microseconds == 0 || span.isInfinite {
                    error(
                        valueLocation(of: entry),
                        "Every= must be a finite interval greater than zero, not '\(entry.value)'."
                    )
                } else {
                    trigger.interval = span
                }
            } catch {
                self.error(valueLocation(of: entry), "Invalid Every= '\(entry.value)': \(error).")
            }
        }
        if let entry = single(.from) { trigger.from = timestamp(entry, zone: zone) }
        if let entry = single(.until) { trigger.until = timestamp(entry, zone: zone) }
        if let entry = single(.count) {
            if let count = Int(entry.value), count > 0 {
                let events = trigger.calendars.count
                let bound = InputLimits.maximumSteppedCount / max(1, events)
                if count > bound
                    && !(trigger.calendars.isEmpty && trigger.instants.isEmpty && trigger.recurrence == nil)
                {
                    let with = events > 1 ? "\(events) OnCalendar= events" : "OnCalendar=, At=, RRule= or RDate="
                    error(
                        valueLocation(of: entry),
                        "Count= may be at most \(InputLimits.grouped(bound)) with \(with), not "
                            + "\(InputLimits.grouped(count)): the occurrences are counted one by one. End a longer "
                            + "series with Until=.")
                } else {
                    trigger.count = count
                }
            } else {
                error(valueLocation(of: entry), "Count= must be a positive whole number, not '\(entry.value)'.")
            }
        }
        if let from = trigger.from, let until = trigger.until, until < from,
            let entry = single(.until)
        {
            error(location(of: entry), "Until= (\(entry.value)) is before From=; nothing could fire.")
        }
        warnOfInstantsOutsideTheWindow(trigger, zone: zone)
    }

    /// `At=` times before `From=` or after `Until=` never fire: a mistake (an `At=` meant as the first of an
    /// `Every=` series), said once for the file.
    mutating func warnOfInstantsOutsideTheWindow(_ trigger: Trigger, zone: ZoneRules) {
        guard trigger.from != nil || trigger.until != nil, let entry = values(.at).first,
            let earliest = trigger.instants.min(), let latest = trigger.instants.max()
        else { return }
        // In the file's zone, as its times were written.
        func local(_ date: Date) -> String { Timestamp.format(date, zone: zone) ?? Timestamp.iso8601(date) }
        if let from = trigger.from, earliest < from {
            warning(
                location(of: entry),
                "At= \(local(earliest)) is before From= \(local(from)): it never fires (From= starts the series; to "
                    + "fire first at At=, make it From=).")
        } else if let until = trigger.until, latest > until {
            warning(location(of: entry), "At= \(local(latest)) is after Until= \(local(until)): it never fires.")
        }
    }

    /// `RandomizedDelaySec=`, `FixedRandomDelay=`, `AccuracySec=`, `WakeSystem=`, as systemd.timer(5) has them.
    mutating func readTiming(into notification: inout ScheduledNotification) {
        var timing = DeliveryTiming()
        if let delay = delaySpan(.randomizedDelaySec) { timing.randomizedDelay = delay }
        if let accuracy = delaySpan(.accuracySec) { timing.accuracy = accuracy }
        if let entry = single(.fixedRandomDelay) {
            timing.isFixedRandomDelay = boolean(entry) ?? false
            if timing.isFixedRandomDelay && timing.randomizedDelay == 0 {
                warning(location(of: entry), "FixedRandomDelay=yes without RandomizedDelaySec= delays nothing.")
            }
        }
        if let entry = single(.wakeSystem), boolean(entry) == true {
            if let refusal = loader.wakeSystemRefusal {
                error(valueLocation(of: entry), "WakeSystem=yes cannot be honoured: \(refusal)")
            } else {
                timing.wakesSystem = true
            }
        }
        if !timing.isExact || timing.isFixedRandomDelay || timing.wakesSystem { notification.timing = timing }
    }

    /// The microseconds of `RandomizedDelaySec=` or `AccuracySec=`, when set and valid.
    mutating func delaySpan(_ key: NotificationKey) -> Int64? {
        guard let entry = single(key) else { return nil }
        guard let span = try? Timespan.parse(entry.value), span <= DeliveryTiming.longest else {
            error(
                valueLocation(of: entry),
                "Invalid \(key.rawValue)= '\(entry.value)': expected a time span of at most 49 days, such as '5min'.")
            return nil
        }
        return Int64(span.microseconds)
    }

    /// `Repeat=`: time spans separated by spaces, each one word (`5min 10min 30min`), each at least a second.
    mutating func readRepeats(_ entry: NotificationAssignment, into notification: inout ScheduledNotification) {
        let words = entry.value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count <= NotificationLoader.maximumRepeats else {
            error(
                valueLocation(of: entry),
                "Invalid Repeat= '\(entry.value)': at most \(NotificationLoader.maximumRepeats) time spans.")
            return
        }
        var repeats: [Duration] = []
        for word in words {
            guard let span = try? Timespan.parse(String(word)), span.microseconds >= 1_000_000, !span.isInfinite,
                let duration = span.duration
            else {
                error(
                    valueLocation(of: entry),
                    "Invalid Repeat= '\(entry.value)': '\(word)' is not a time span of a second or more; give "
                        + "spans such as '5min 10min 30min', each one word.")
                return
            }
            repeats.append(duration)
        }
        notification.repeats = repeats
    }

    mutating func readContent(into notification: inout ScheduledNotification) {
        if let entry = single(.body) { notification.body = entry.value }
        if let entry = single(.icon) { notification.icon = entry.value }
        if let entry = single(.category) { notification.category = entry.value }
        if let entry = single(.sound) { notification.sound = entry.value }
        if let entry = single(.thread) {
            if NotificationLoader.isValidThread(entry.value) {
                notification.thread = entry.value
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid Thread= '\(entry.value)': expected a name of at most 255 bytes without control characters."
                )
            }
        }
        if let entry = single(.interruptionLevel) {
            if let level = ScheduledNotification.InterruptionLevel(rawValue: entry.value) {
                notification.interruptionLevel = level
                notification.urgency = level.defaultUrgency
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid InterruptionLevel= '\(entry.value)': expected passive, active, time-sensitive or critical."
                )
            }
        }
        // An explicit Urgency= wins over the level's for the desktop; the level still decides focus.
        if let entry = single(.urgency) {
            if let urgency = ScheduledNotification.Urgency(rawValue: entry.value) {
                notification.urgency = urgency
            } else {
                error(valueLocation(of: entry), "Invalid Urgency= '\(entry.value)': expected low, normal or critical.")
            }
        }
        if let entry = single(.badge) {
            if let badge = ScheduledNotification.BadgeChange(parsing: entry.value) {
                notification.badge = badge
            } else {
                error(valueLocation(of: entry), "Invalid Badge= '\(entry.value)': expected N, +N, -N or clear.")
            }
        }
        if let entry = single(.snoozeSec) {
            if let span = try? Timespan.parse(entry.value), span.microseconds > 0, !span.isInfinite,
                let duration = span.duration
            {
                notification.snooze = duration
            } else {
                error(valueLocation(of: entry), "Invalid SnoozeSec= '\(entry.value)': expected a time span above zero.")
            }
        }
        if let entry = single(.repeats) { readRepeats(entry, into: &notification) }
        if let entry = single(.dismissAcknowledges) {
            notification.dismissAcknowledges = boolean(entry) ?? true
        }
        if let entry = single(.enabled) { notification.isEnabled = boolean(entry) ?? true }
        readActions(into: &notification)
        // Gathered first and set once: the notification keeps the pairs packed, written from the parts of the
        // values where they lie, without a string made of each.
        var info: [(key: Substring, value: Substring)] = []
        let entries = values(.info)
        info.reserveCapacity(entries.count)
        for entry in entries {
            guard let equals = entry.value.utf8.firstIndex(of: UInt8(ascii: "=")),
                Self.isValidInfoKey(entry.value[..<equals])
            else {
                error(
                    valueLocation(of: entry),
                    "Invalid Info= '\(entry.value)': expected KEY=VALUE with a KEY of letters, digits and '_'.")
                continue
            }
            let key = entry.value[..<equals]
            let value = entry.value[entry.value.utf8.index(after: equals)...]
            if info.contains(where: { $0.key == key }) { info.removeAll { $0.key == key } }
            info.append((key, value))
        }
        if !info.isEmpty { notification.setInfo(info) }
        for entry in values(.deliver) {
            do {
                for name in try assignments.words(of: entry) where !notification.backends.contains(name) {
                    notification.backends.append(name)
                    // A misspelt backend guarantees a missed reminder: the notification is left out, as
                    // `chimectl add --deliver` refuses it, and the rest load.
                    if let known = loader.knownBackends, !known.contains(name) {
                        error(
                            valueLocation(of: entry),
                            "Deliver= names '\(name)', which is no backend of this instance; leaving the notification "
                                + "out."
                                + Suggestion.didYouMean(name, among: known)
                                + " Backends: \(known.joined(separator: ", ")).")
                    }
                }
            } catch {
                diagnostics.append(error)
            }
        }
    }

    mutating func readActions(into notification: inout ScheduledNotification) {
        for entry in values(.action) {
            guard let colon = entry.value.firstIndex(of: ":"), Self.isValidActionKey(entry.value[..<colon]),
                !entry.value[entry.value.index(after: colon)...].isEmpty
            else {
                error(valueLocation(of: entry), "Invalid Action= '\(entry.value)': expected KEY:Label.")
                continue
            }
            let key = String(entry.value[..<colon])
            notification.actions.removeAll { $0.key == key }
            notification.actions.append(.init(key: key, label: String(entry.value[entry.value.index(after: colon)...])))
        }
        for entry in values(.execAction) {
            guard let colon = entry.value.firstIndex(of: ":"), Self.isValidActionKey(entry.value[..<colon]) else {
                error(valueLocation(of: entry), "Invalid ExecAction= '\(entry.value)': expected KEY:COMMAND.")
                continue
            }
            let key = String(entry.value[..<colon])
            var location = valueLocation(of: entry)
            if let column = location.column { location.column = column + key.count + 1 }
            do {
                let argv = try WordSplitter.split(String(entry.value[entry.value.index(after: colon)...]), at: location)
                guard let program = argv.first, program.hasPrefix("/") else {
                    error(location, "ExecAction= needs an absolute path to a program, not '\(argv.first ?? "")'.")
                    continue
                }
                notification.actionCommands[key] = argv
            } catch {
                diagnostics.append(error)
            }
        }
        for key in notification.actionCommands.keys.sorted()
        where key != "default" && !notification.actions.contains(where: { $0.key == key }) {
            let entry = values(.execAction).last { $0.value.hasPrefix(key + ":") }
            warning(
                entry.map { location(of: $0) } ?? UnitFileLocation(file: path),
                "ExecAction= for '\(key)', which no Action= offers; it can only be chosen by name.")
        }
    }

    /// systemd's booleans (`UnitFileEntry.boolean`), or an error.
    mutating func boolean(_ entry: NotificationAssignment) -> Bool? {
        guard let value = entry.boolean else {
            error(valueLocation(of: entry), "Invalid \(entry.name)= '\(entry.value)': expected yes or no.")
            return nil
        }
        return value
    }

    // Both decided on the bytes: asked for every Action= and Info= of a million generated notifications.
    static func isValidActionKey(_ key: Substring) -> Bool {
        !key.isEmpty && key.utf8.count <= 64
            && key.utf8.allSatisfy {
                isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            }
    }

    /// Info keys become journal fields (`CHIME_INFO_KEY`): letters, digits and `_`, not starting with a digit.
    static func isValidInfoKey(_ key: Substring) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), key.utf8.count <= 64
        else {
            return false
        }
        return key.utf8.allSatisfy { isASCIILetterOrDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
