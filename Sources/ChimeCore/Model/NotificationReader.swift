import Foundation

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
}
