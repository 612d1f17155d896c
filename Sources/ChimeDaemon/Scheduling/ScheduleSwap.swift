/// The scheduler's side of swapping in a schedule a rebuild prepared off its queue (`PreparedSchedule`): the
/// generation of the entries, which every change of them raises, so that a schedule prepared from older ones is
/// prepared again at the commit; and what the scheduler handled while the rebuild prepared, so that the new
/// schedule does not handle it again.
///
/// Entries are counted by their place in the scheduler's entries; instants are µs since the epoch. A value the
/// scheduler holds, used on its queue.
struct ScheduleSwap {
    private(set) var generation = 0
    private var preparing = false
    /// Per entry of the installed schedule: the instant it continues after, for what was handled while preparing.
    private var handledWhilePreparing: [Int: Int64] = [:]
    /// Per entry of the schedule committed: what the replaced one handled while it was prepared.
    private var staleThrough: [Int: Int64] = [:]

    /// The entries changed (a request placed or withdrawn, the clock set): a schedule prepared before is stale.
    mutating func entriesChanged() {
        generation += 1
    }

    /// A rebuild begins preparing from the entries as they are; returns their generation.
    mutating func beginPreparing() -> Int {
        preparing = true
        // What the installed schedule still had pending but handled already stays handled.
        handledWhilePreparing = staleThrough
        return generation
    }

    /// The rebuild failed: nothing will be committed.
    mutating func abandon() {
        preparing = false
        handledWhilePreparing = [:]
    }

    /// Whether a schedule prepared from generation `prepared` can be committed as it is.
    func isCurrent(_ prepared: Int) -> Bool { prepared == generation }

    /// The prepared schedule was committed: `newIndex[old]` is each old entry's place in it, or -1.
    mutating func committed(newIndex: [Int32]) {
        generation += 1
        staleThrough = [:]
        for (previous, through) in handledWhilePreparing where previous < newIndex.count {
            let index = Int(newIndex[previous])
            if index >= 0 { staleThrough[index] = through }
        }
        abandon()
    }

    /// The instant to continue after for the occurrence of `entry` at `fireTime`, when the schedule this one
    /// replaced handled it already; `nil` to handle it.
    mutating func handledAlready(entry: Int, fireTime: Int64) -> Int64? {
        guard !staleThrough.isEmpty, let handled = staleThrough.removeValue(forKey: entry), fireTime <= handled
        else { return nil }
        return handled
    }

    /// `entry` was handled through `instant`; noted while a rebuild prepares.
    mutating func handled(entry: Int, through instant: Int64) {
        if preparing { handledWhilePreparing[entry] = instant }
    }

    /// After a compaction of the entries: `newIndex[old]` is each entry's new place, or -1.
    mutating func renumber(_ newIndex: [Int]) {
        staleThrough = Dictionary(
            uniqueKeysWithValues: staleThrough.compactMap { newIndex[$0.key] < 0 ? nil : (newIndex[$0.key], $0.value) })
    }
}
