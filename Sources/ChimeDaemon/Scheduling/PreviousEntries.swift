import ChimeCore

/// The entries installed before a rebuild, found by id. A rebuild mostly loads the same notifications in the same
/// order, so each is looked for first where the one before it was found (at its own position, or shifted by as
/// many as were added or removed before it); only when that fails is an index of every id built, once.
struct PreviousEntries {
    let entries: [LoadedNotification]
    /// How many entries each thread looks up at a time, each share starting from no shift.
    static let share = 16_384

    /// Where a notification was before, and whether it fires as it did then: its trigger and its delivery's timing
    /// equal to the previous entry's, and the zones it names read with the rules they had. Four bytes, as a million
    /// of them are held beside both schedules.
    struct Match: Equatable {
        /// The position in the low 30 bits, with `firesAlike` and `zonesAlike` above it; all bits set for none.
        private let raw: UInt32
        private static let firesAlikeBit: UInt32 = 1 << 31
        private static let zonesAlikeBit: UInt32 = 1 << 30

        static let none = Match(raw: .max)
        /// Positions are below this: a million entries need 20 bits.
        static let positionLimit = 1 << 30

        private init(raw: UInt32) { self.raw = raw }

        init(position: Int, firesAlike: Bool, zonesAlike: Bool) {
            precondition(position < Self.positionLimit, "more entries than a match can tell apart")
            raw = UInt32(position) | (firesAlike ? Self.firesAlikeBit : 0) | (zonesAlike ? Self.zonesAlikeBit : 0)
        }

        var position: Int? { raw == .max ? nil : Int(raw & (Self.zonesAlikeBit - 1)) }
        var firesAlike: Bool { raw != .max && raw & Self.firesAlikeBit != 0 }
        /// Whether the occurrence pending before is still the one to come: it fires alike and its zones' rules are
        /// those it was computed with.
        var keepsPending: Bool { firesAlike && raw & Self.zonesAlikeBit != 0 }
    }

    init(_ entries: [LoadedNotification]) {
        self.entries = entries
    }

    /// Where each of `installed` was before, and whether it fires alike. The shares of `installed` are looked up
    /// and compared on all cores: a rebuild of a million whose output changed its order found each by the index,
    /// one after the other, for a second on the thread preparing it; and comparing the triggers of a million
    /// edited lines on that thread (each copied to be compared) was most of what was left of preparing them.
    func matches(of installed: UnsafeBufferPointer<LoadedNotification>) -> [Match] {
        guard !entries.isEmpty else { return [Match](repeating: .none, count: installed.count) }
        let index = Locked<NameIndex?>(nil)
        return entries.withUnsafeBufferPointer { entries in
            nonisolated(unsafe) let entries = entries
            /// The index of every id, made by the first share that needs it; the others wait for it.
            func shared() -> NameIndex {
                index.withLock { index in
                    if index == nil { index = NameIndex(count: entries.count) { entries[$0].notification.id } }
                    return index!
                }
            }
            let shares = (installed.count + Self.share - 1) / Self.share
            return [Match](unsafeUninitializedCapacity: installed.count) { buffer, initialized in
                nonisolated(unsafe) let buffer = buffer
                ParallelWork.perform(iterations: shares) { part in
                    var shift = 0
                    var index: NameIndex?
                    var sameRules: [String: Bool] = [:]
                    for position in part * Self.share..<min(installed.count, (part + 1) * Self.share) {
                        let id = installed[position].notification.id
                        let guess = position + shift
                        var found: Int?
                        if entries.indices.contains(guess), entries[guess].notification.id == id {
                            found = guess
                        } else {
                            if index == nil { index = shared() }
                            found = index!.position(of: id) { entries[$0].notification.id }
                            if let found { shift = found - position }
                        }
                        var match = Match.none
                        if let found {
                            // A notification read again and found equal shares the earlier one's trigger: the same
                            // storage fires alike in the same zones, told without touching either.
                            let identical = ScheduledNotification.haveIdenticalTriggers(
                                LoadedNotification.notification(of: entries.baseAddress! + found),
                                LoadedNotification.notification(of: installed.baseAddress! + position))
                            let firesAlike =
                                (identical
                                    || entries[found].notification.trigger == installed[position].notification.trigger)
                                && entries[found].notification.timing == installed[position].notification.timing
                            let zonesAlike =
                                firesAlike
                                && (identical
                                    || installed[position].notification.trigger.hasSameZoneRules(
                                        as: entries[found].notification.trigger, cache: &sameRules))
                            match = Match(position: found, firesAlike: firesAlike, zonesAlike: zonesAlike)
                        }
                        (buffer.baseAddress! + position).initialize(to: match)
                    }
                }
                initialized = installed.count
            }
        }
    }
}
