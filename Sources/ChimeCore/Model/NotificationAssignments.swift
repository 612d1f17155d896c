/// The assignments of known keys a notification is read from, in the order given, with where each came from: the
/// entries of a `UnitFile` (a file and its drop-ins), or the members of a generator's line read straight from its
/// bytes. Each is a key and a value, nothing more, so that asking for a key some thirty times for each of a million
/// generated notifications copies no locations; where an assignment is, is only looked up for a message.
struct NotificationAssignments {
    /// Where the assignments came from.
    enum Origin {
        /// A file's entries: unknown sections and keys, and values beyond their bounds, are still to be reported.
        case unit(UnitFile)
        /// A generator's line that was read without noting columns, known to hold only known keys within their
        /// bounds: every message about it has the line's location. `GeneratorOutput` reads a line this way only
        /// while nothing is wrong with it, and reads it again in full for the messages when anything is.
        case unplacedLine(UnitFileLocation)
    }

    let origin: Origin
    private let all: [NotificationAssignment]

    init(_ unit: UnitFile) {
        origin = .unit(unit)
        var all: [NotificationAssignment] = []
        all.reserveCapacity(unit.sections.reduce(0) { $0 + $1.entries.count })
        // By index: `enumerated()` copies each section and entry out, retaining and releasing all they hold.
        let sections = unit.sections
        for sectionIndex in sections.indices {
            let isTrigger: Bool
            switch sections[sectionIndex].name {
            case "Trigger": isTrigger = true
            case "Notification": isTrigger = false
            default: continue
            }
            let entries = sections[sectionIndex].entries
            for entryIndex in entries.indices {
                guard let key = NotificationKey.named(entries[entryIndex].key), key.isTrigger == isTrigger else {
                    continue
                }
                all.append(
                    NotificationAssignment(
                        key: key, value: entries[entryIndex].value, section: Int32(sectionIndex),
                        entry: Int32(entryIndex)))
            }
        }
        self.all = all
    }

    /// Assignments of a line read without locations: see `Origin.unplacedLine`.
    init(unplaced all: [NotificationAssignment], line: UnitFileLocation) {
        origin = .unplacedLine(line)
        self.all = all
    }

    /// The unit's errors of its own (a line it could not parse, a file it could not read), if read from one.
    var hasErrorsOfItsOwn: Bool {
        guard case .unit(let unit) = origin else { return false }
        return unit.hasErrors
    }

    /// Where the section `name` starts, or the line of an unplaced line.
    func location(ofSection name: String) -> UnitFileLocation? {
        switch origin {
        case .unit(let unit): unit.sections.first { $0.name == name }?.location
        case .unplacedLine(let line): line
        }
    }

    /// The value of a single-valued key, `nil` when unset or reset to its default by an empty assignment: as
    /// `UnitFile.lastValue(for:in:)`, less an empty value.
    func single(_ key: NotificationKey) -> NotificationAssignment? {
        // By index, comparing keys in place: a loop over the elements copies each, retaining its value.
        var index = all.endIndex
        while index > all.startIndex {
            index -= 1
            if all[index].key == key { return all[index].value.isEmpty ? nil : all[index] }
        }
        return nil
    }

    /// The assignments of a list-valued key after the reset rule, as `UnitFile.values(for:in:)`.
    func values(_ key: NotificationKey) -> [NotificationAssignment] {
        // Counted first, so that the array is made once at its size: grown one append at a time, the two `Info=`
        // pairs of a generated line allocated twice.
        let first = firstAfterReset(key)
        var count = 0
        for index in first..<all.endIndex where all[index].key == key { count += 1 }
        guard count > 0 else { return [] }
        var result: [NotificationAssignment] = []
        result.reserveCapacity(count)
        for index in first..<all.endIndex where all[index].key == key { result.append(all[index]) }
        return result
    }

    /// The values of a list-valued key after the reset rule, as `values(_:)` has them, without an array made.
    func texts(_ key: NotificationKey) -> some Collection<String> {
        all[firstAfterReset(key)...].lazy.filter { $0.key == key }.map(\.value)
    }

    /// Where the key's list starts: just after its last empty assignment, which drops those before it.
    private func firstAfterReset(_ key: NotificationKey) -> Int {
        var first = all.startIndex
        for index in all.indices where all[index].key == key && all[index].value.isEmpty { first = index + 1 }
        return first
    }

    /// Whether the key has any assignment left after the reset rule.
    func has(_ key: NotificationKey) -> Bool {
        var index = all.endIndex
        while index > all.startIndex {
            index -= 1
            if all[index].key == key { return !all[index].value.isEmpty }
        }
        return false
    }

    /// Where the assignment's key is.
    func location(of assignment: NotificationAssignment) -> UnitFileLocation {
        switch origin {
        case .unit(let unit): unit.sections[Int(assignment.section)].entries[Int(assignment.entry)].location
        case .unplacedLine(let line): line
        }
    }

    /// Where the assignment's value starts.
    func valueLocation(of assignment: NotificationAssignment) -> UnitFileLocation {
        switch origin {
        case .unit(let unit): unit.sections[Int(assignment.section)].entries[Int(assignment.entry)].valueLocation
        case .unplacedLine(let line): line
        }
    }

    /// The value split into words, as `UnitFileEntry.words()`.
    func words(of assignment: NotificationAssignment) throws(UnitFileDiagnostic) -> [String] {
        switch origin {
        case .unit(let unit):
            return try unit.sections[Int(assignment.section)].entries[Int(assignment.entry)].words()
        case .unplacedLine(let line):
            do {
                return try WordSplitter.split(Array(assignment.value.unicodeScalars))
            } catch {
                throw UnitFileDiagnostic(.error, at: line, error.message)
            }
        }
    }
}

/// One assignment of a known key.
struct NotificationAssignment {
    var key: NotificationKey
    var value: String
    /// Where it is in a unit's sections; unused for an unplaced line.
    fileprivate var section: Int32 = 0
    fileprivate var entry: Int32 = 0

    init(key: NotificationKey, value: String) {
        self.key = key
        self.value = value
    }

    fileprivate init(key: NotificationKey, value: String, section: Int32, entry: Int32) {
        self.key = key
        self.value = value
        self.section = section
        self.entry = entry
    }

    /// The key's name, as a file writes it.
    var name: String { key.rawValue }

    /// The value as one of systemd's booleans, as `UnitFileEntry.boolean`.
    var boolean: Bool? { UnitFileEntry.boolean(value) }
}
