/// Where each known key's assignments are in a `UnitFile`, found in one pass, so that reading a notification asks
/// for a key without searching the sections by name again: a load asks some thirty times for each of a million
/// generated notifications.
struct NotificationAssignments {
    private let unit: UnitFile
    /// Each assignment of a known key in its own section, in file order: its key and where it is in `unit`.
    private var slots: [(key: NotificationKey, section: Int32, entry: Int32)] = []

    init(_ unit: UnitFile) {
        self.unit = unit
        slots.reserveCapacity(unit.sections.reduce(0) { $0 + $1.entries.count })
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
                guard let key = NotificationKey.named[entries[entryIndex].key], key.isTrigger == isTrigger else {
                    continue
                }
                slots.append((key, Int32(sectionIndex), Int32(entryIndex)))
            }
        }
    }

    private func entry(_ slot: (key: NotificationKey, section: Int32, entry: Int32)) -> UnitFileEntry {
        unit.sections[Int(slot.section)].entries[Int(slot.entry)]
    }

    /// The value of a single-valued key, `nil` when unset or reset to its default by an empty assignment: as
    /// `UnitFile.lastValue(for:in:)`, less an empty value.
    func single(_ key: NotificationKey) -> UnitFileEntry? {
        for slot in slots.reversed() where slot.key == key {
            let entry = entry(slot)
            return entry.value.isEmpty ? nil : entry
        }
        return nil
    }

    /// The assignments of a list-valued key after the reset rule, as `UnitFile.values(for:in:)`.
    func values(_ key: NotificationKey) -> [UnitFileEntry] {
        var result: [UnitFileEntry] = []
        for slot in slots where slot.key == key {
            let entry = entry(slot)
            if entry.value.isEmpty {
                result.removeAll()
            } else {
                result.append(entry)
            }
        }
        return result
    }

    /// Whether the key has any assignment left after the reset rule.
    func has(_ key: NotificationKey) -> Bool {
        for slot in slots.reversed() where slot.key == key { return !entry(slot).value.isEmpty }
        return false
    }
}
