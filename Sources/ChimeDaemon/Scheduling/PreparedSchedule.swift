import ChimeCore
import Foundation

/// A loaded schedule made ready to replace the installed one: each notification's pending occurrence found and the
/// queue ordered, the pinned and listed entries picked out. A rebuild prepares it off the scheduler's queue, from
/// the installed schedule as it stood (`Scheduler.basis`), so that deliveries go on meanwhile; `Scheduler.commit`
/// then swaps it in, in a step that does not grow with the schedule.
struct PreparedSchedule: Sendable {
    /// The installed schedule as it stood, taken on the scheduler's queue.
    struct Basis: Sendable {
        /// The scheduler's count of changes to its entries: a basis from before another change is not committed.
        var generation: Int
        var entries: [LoadedNotification]
        var queue: OccurrenceQueue
        var systemZone: ZoneRules
        /// `nil` before the first install.
        var processedThrough: Int64?
        var keepingPending: Bool
        var delaySeeds: DelaySeeds
        var histories: HistoryTable
        var reportedSkips: Set<String>
        /// Whether snoozes or repeats are pending, which the commit keeps only for the notifications still there.
        var hasSnoozesOrRepeats: Bool
    }

    var loaded: LoadedSchedule
    var generation: Int
    var keepingPending: Bool
    var isFirstInstall: Bool
    /// The instant it was prepared at: new notifications start from it.
    var now: Int64
    var queue: OccurrenceQueue
    /// The due times of the `WakeSystem=yes` entries' pending occurrences.
    var wakeDue: [Int: Int64] = [:]
    var coalesces = false
    /// Ids seen for the first time, at `now`.
    var firstSeen: [String] = []
    /// The histories of `firstSeen`, made while preparing when there were no others (a first start).
    var firstSeenTable: [String: DeliveryHistory]?
    /// New or changed entries with a one-shot instant already past, not reported yet.
    var pastInstants: [Int] = []
    /// For each entry of the basis, its index in this schedule, or -1.
    var newIndex: [Int32]
    /// The requests among the entries (`RequestIndex`): their entries, the entry of each id, those always listed.
    var pinned: Set<Int> = []
    /// The ids of the enabled notifications and of those that repeat until acknowledged, when the basis had
    /// snoozes or repeats to keep or drop by them.
    var enabledIDs: Set<String>?
    var repeatingIDs: Set<String>?
    var pinnedIDs: [String: Int] = [:]
    var listed: Set<Int> = []

    /// Prepares `loaded` to replace `basis`.
    ///
    /// A notification already scheduled with the same trigger continues from where the previous schedule left off,
    /// so an occurrence that fell due while the rebuild was loading is still delivered; with `keepingPending`, its
    /// pending occurrence is taken as it was, which is what computing it again would give unless a zone's rules
    /// changed. At the first install, one known from the stored history continues from its last handled occurrence,
    /// and what fell due since goes to `overdue` (on the scheduler's queue), which returns the instant to continue
    /// after. Any other (new, edited, or re-added) starts from `now`, so a date already past is never delivered.
    /// - Parameter history: an id's history as the thread preparing may read it (`HistoryTable`).
    init(
        _ loaded: LoadedSchedule, basis: Basis, now: Int64, history: (String) -> DeliveryHistory?,
        overdue: ((LoadedNotification, _ first: Int64, _ now: Int64, _ through: Int64) -> Int64)? = nil
    ) {
        self.loaded = loaded
        generation = basis.generation
        keepingPending = basis.keepingPending
        isFirstInstall = basis.processedThrough == nil
        self.now = now
        newIndex = []
        let resumeFrom = basis.processedThrough ?? now
        let previousEntries = PreviousEntries(basis.entries)
        var kept =
            basis.keepingPending && !isFirstInstall
            ? PendingOccurrences(basis.queue, entries: basis.entries.count) : nil
        if kept != nil && !loaded.systemZone.hasSameRules(as: basis.systemZone) { kept = nil }
        let systemZone = loaded.systemZone
        let seeds = basis.delaySeeds
        var items: [OccurrenceQueue.Item] = []
        items.reserveCapacity(loaded.notifications.count)
        let isFirstInstall = self.isFirstInstall
        var firstSeen: [String] = []
        var pastInstants: [Int] = []
        var wakeDue: [Int: Int64] = [:]
        var coalesces = false
        // Made here and moved in at the end: a copy of the property would be copied again by the first change.
        var newIndex = [Int32](repeating: -1, count: basis.entries.count)
        let fresh = DeliveryHistory(firstSeen: Date(epochMicroseconds: now))
        // The entries whose next occurrence is to be found: their index, their history's in `histories` (-1: `fresh`)
        // and the instant to search after.
        var searches: [(entry: Int32, history: Int32, after: Int64)] = []
        var histories: [DeliveryHistory] = []

        func next(_ notification: borrowing ScheduledNotification, after: Int64, history: DeliveryHistory) -> Int64? {
            notification.trigger.nextOccurrence(
                after: Date(epochMicroseconds: after), history: history, systemZone: systemZone)?.epochMicroseconds
        }
        // Read in place, through the buffers: copying a notification out (as `for entry in entries` does) retains and
        // releases every string it holds, which a million of them feel. The triggers, which are copied to be
        // compared, are compared on all cores by `PreviousEntries`.
        func prepareLoop(
            _ installed: UnsafeBufferPointer<LoadedNotification>, _ before: UnsafeBufferPointer<LoadedNotification>
        ) {
            // A reused generator output that is the whole schedule is the installed array itself: each entry is
            // its own previous one, unchanged, and nothing needs to be looked up or compared.
            let isInstalledAgain = installed.count == before.count && installed.baseAddress == before.baseAddress
            let matches = isInstalledAgain ? [] : previousEntries.matches(of: installed)
            for index in installed.indices {
                let match =
                    isInstalledAgain
                    ? PreviousEntries.Match(position: index, firesAlike: true, zonesAlike: true) : matches[index]
                let previous = match.position
                if let previous { newIndex[previous] = Int32(index) }
                guard installed[index].notification.isEnabled else { continue }
                let timing = installed[index].notification.timing
                if timing.accuracy > .zero { coalesces = true }
                // How long after an occurrence its delivery may still come: until then it is pending, not missed.
                let window = (timing.randomizedDelay + timing.accuracy).wholeMicroseconds
                var after: Int64
                var known: DeliveryHistory?
                if let previous, match.firesAlike {
                    if match.keepsPending, let pending = kept?.pending(of: previous) {
                        let item = OccurrenceQueue.Item(fireTime: pending.fireTime, due: pending.due, entry: index)
                        if timing.wakesSystem { wakeDue[index] = item.due }
                        items.append(item)
                        continue
                    }
                    // An occurrence handled already is after the history's last one; one whose delayed delivery is
                    // still to come is within the window.
                    after = min(resumeFrom, now) - window
                    known = history(installed[index].notification.id)
                } else if isFirstInstall, let stored = history(installed[index].notification.id) {
                    known = stored
                    // Known from before a restart: whatever fell due while the daemon was down was missed, however
                    // short the gap, unless its delivery's window is still open.
                    after = min((stored.lastOccurrence ?? stored.firstSeen).epochMicroseconds, now)
                    if let overdue, let first = next(installed[index].notification, after: after, history: stored),
                        first <= now - window
                    {
                        after = overdue(installed[index], first, now, now - window)
                        known = history(installed[index].notification.id)
                    }
                } else {
                    // New, re-added or edited: nothing before now fires. A re-added one keeps its first sighting
                    // (the anchor of Every= and Count=).
                    let id = installed[index].notification.id
                    known = history(id)
                    if known == nil {
                        known = fresh
                        firstSeen.append(id)
                    }
                    if installed[index].notification.trigger.instants.contains(where: { $0.epochMicroseconds <= now }),
                        !basis.reportedSkips.contains(id)
                    {
                        pastInstants.append(index)
                    }
                    after = now
                }
                guard let known else { continue }
                if known == fresh {
                    searches.append((Int32(index), -1, after))
                } else {
                    searches.append((Int32(index), Int32(histories.count), after))
                    histories.append(known)
                }
            }
            // The calendar searches are independent: on all cores, a million of them at the first start, a share
            // at a time, each thread with a system zone of its own.
            let histories = histories
            let searched = searches
            let found = [Int64](unsafeUninitializedCapacity: searched.count) { buffer, initialized in
                nonisolated(unsafe) let buffer = buffer
                // Two shares at least from a few thousand on, so that both cores search the 10,000 of a start on
                // files too.
                let share = min(16_384, max(2_048, (searched.count + 1) / 2))
                ParallelWork.perform(iterations: (searched.count + share - 1) / share) { part in
                    let zone = systemZone.unshared()
                    for position in part * share..<min(searched.count, (part + 1) * share) {
                        let (entry, history, after) = searched[position]
                        let next = installed[Int(entry)].notification.trigger.nextOccurrence(
                            after: Date(epochMicroseconds: after),
                            history: history < 0 ? fresh : histories[Int(history)], systemZone: zone)
                        (buffer.baseAddress! + position).initialize(to: next?.epochMicroseconds ?? .min)
                    }
                }
                initialized = searched.count
            }
            for position in searches.indices where found[position] != .min {
                let index = Int(searches[position].entry)
                let timing = installed[index].notification.timing
                let item = Self.pendingItem(
                    timing: timing, id: installed[index].notification.id, fireTime: found[position], entry: index,
                    seeds: seeds)
                if timing.wakesSystem { wakeDue[index] = item.due }
                items.append(item)
            }
        }
        // At a first start with no stored history every enabled notification is seen for the first time: their table
        // is made beside the serial part of the preparation, where merging it at the commit held the scheduler's
        // queue for a million insertions.
        var firstSeenTable: [String: DeliveryHistory]?
        let makesTable = isFirstInstall && basis.entries.isEmpty && basis.histories.isEmpty
        ParallelWork.perform(iterations: makesTable ? 2 : 1, threads: loaded.notifications.count < 10_000 ? 1 : 2) {
            part in
            if part == 0 {
                loaded.notifications.withUnsafeBufferPointer { installed in
                    basis.entries.withUnsafeBufferPointer { before in prepareLoop(installed, before) }
                }
            } else {
                var table = [String: DeliveryHistory](minimumCapacity: loaded.notifications.count)
                loaded.notifications.withUnsafeBufferPointer { installed in
                    for index in installed.indices where installed[index].notification.isEnabled {
                        table[installed[index].notification.id] = fresh
                    }
                }
                firstSeenTable = table
            }
        }
        self.firstSeenTable = firstSeenTable
        // Handed over whole, so that the heap is ordered in this storage rather than in a copy of it.
        var unordered: [OccurrenceQueue.Item] = []
        swap(&unordered, &items)
        queue = OccurrenceQueue(consume unordered)
        self.wakeDue = wakeDue
        self.coalesces = coalesces
        self.firstSeen = firstSeen
        self.pastInstants = pastInstants
        self.newIndex = newIndex
        if basis.hasSnoozesOrRepeats {
            enabledIDs = Self.enabledIDs(loaded.notifications)
            repeatingIDs = Self.repeatingIDs(loaded.notifications)
        }
        let entries = loaded.notifications
        let pinned = LoadedNotification.requestPositions(in: entries)
        self.pinned = pinned
        pinnedIDs = Dictionary(pinned.map { (entries[$0].notification.id, $0) }) { first, _ in first }
        listed = pinned.filter { entries[$0].kind == .added }
    }

    static func enabledIDs(_ entries: [LoadedNotification]) -> Set<String> {
        Set(entries.lazy.filter(\.notification.isEnabled).map(\.notification.id))
    }

    static func repeatingIDs(_ entries: [LoadedNotification]) -> Set<String> {
        Set(
            entries.lazy.filter { $0.notification.isEnabled && !$0.notification.repeats.isEmpty }.map(\.notification.id)
        )
    }

    /// The queue's item for the occurrence at `fireTime`: due that much later as its randomized delay says.
    /// - Parameter id: the notification's, read only for a randomized delay (most have none).
    static func pendingItem(
        timing: DeliveryTiming, id: @autoclosure () -> String, fireTime: Int64, entry: Int, seeds: DelaySeeds
    ) -> OccurrenceQueue.Item {
        guard timing.randomizedDelay > .zero else { return .init(fireTime: fireTime, entry: entry) }
        let delay = timing.delay(id: id(), fireTime: Date(epochMicroseconds: fireTime), seeds: seeds)
        return .init(fireTime: fireTime, due: fireTime + delay.wholeMicroseconds, entry: entry)
    }
}

/// A schedule a commit replaced: freeing a million notifications takes long enough to be done off the queue.
struct ReplacedSchedule: Sendable {
    let entries: [LoadedNotification]
    let queue: OccurrenceQueue
}
