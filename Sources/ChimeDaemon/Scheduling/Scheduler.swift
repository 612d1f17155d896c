import ChimeCore
import ChimePlatform
import Foundation

/// The schedule and its one timer: keeps the next occurrence of every notification in a heap, arms one wall-clock
/// timer for the earliest, and on each fire delivers everything due and re-arms.
///
/// Every rebuild is "cancel all, then reschedule": `install(_:)` replaces the whole schedule. An application's
/// request alone is placed or withdrawn without one (`place`, `withdraw`), with the same result as a rebuild that
/// read it. Bound to one serial queue in the daemon (checked, where it is given one); tests call it directly with a
/// manual clock and timer.
public final class Scheduler: @unchecked Sendable {
    /// A notification of the schedule, as loaded (the loaded array is taken as it is: a copy of each of a million
    /// entries would cost a retain and a release of everything it holds).
    typealias Entry = LoadedNotification

    /// The requests among the entries, found at each install and changed by `place` and `withdraw`.
    private(set) var requests = RequestIndex()

    let clock: any WallClock
    let timer: any WallTimer
    /// The queue every call comes on, when the scheduler is bound to one.
    private let boundQueue: DispatchQueue?
    let store: any HistoryStore
    let dispatcher: any DeliveryDispatching
    let log: any EventLog
    /// An occurrence overdue by more than this when it is processed (suspend, a forward clock jump, a stopped
    /// process) counts as missed rather than late; overdue past the end of its window, for one with a randomized
    /// delay or an accuracy (`DeliveryTiming`).
    public var missedThreshold: Duration = .seconds(60)
    /// What randomized delays (`RandomizedDelaySec=`) are drawn from: the host's and this run's.
    let delaySeeds: DelaySeeds
    /// Whether some notification has an `AccuracySec=`, so that wake-ups are worked out for deliveries to share.
    private var coalesces = false

    private(set) var entries: [Entry] = []
    /// The generation of the entries, and what was handled while a rebuild prepared the next schedule.
    private var swap = ScheduleSwap()
    private(set) var queue = OccurrenceQueue()
    private(set) var systemZone: ZoneRules = .utc
    /// Per notification id: first sighting and last occurrence handled. Kept across rebuilds.
    let historyTable: HistoryTable
    public var histories: [String: DeliveryHistory] { historyTable.all }
    /// Every occurrence at or before this instant (µs) has been handled.
    private(set) var processedThrough: Int64?
    /// What the journal is told of missed occurrences and past instants.
    var late: LateOccurrences
    /// Makes the store's records durable, and says when it cannot.
    private let stateWriter: StateWriter
    /// The snoozes and the repeats of `Repeat=` pending, kept across restarts.
    var followUps: FollowUps
    /// When logind last said the machine was about to sleep, until it resumed (`Scheduler+Sleep`).
    var sleepingSince: Date?
    /// The alarm that wakes the system for the earliest occurrence with `WakeSystem=yes` (`Scheduler+Wake`);
    /// `nil` where chimed cannot wake the system.
    let wakeAlarm: WakeAlarm?
    /// Keeps the system awake while a delivery that may have woken it is in flight.
    private let sleepHold: (any SleepHolding)?
    /// The due time of each entry with `WakeSystem=yes` that has a pending occurrence.
    var wakeDue: [Int: Int64] = [:]
    /// Told of the changes that come from within: fires, and requests' deliveries finishing (`ScheduleReporter`).
    private weak var follower: (any ScheduleFollowing)?

    /// - Parameters:
    ///   - timer: the one timer; the scheduler installs its handler.
    ///   - store: what survives a restart; the scheduler starts from what it holds.
    ///   - delaySeeds: what randomized delays are drawn from (`MachineSeed`).
    ///   - wake: the alarm and the sleep hold of `WakeSystem=yes`, where chimed has them.
    public init(
        clock: any WallClock, timer: any WallTimer, dispatcher: any DeliveryDispatching, log: any EventLog,
        store: any HistoryStore, snoozeStore: (any SnoozeStore)? = nil, repeatStore: (any RepeatStore)? = nil,
        delaySeeds: DelaySeeds = DelaySeeds(host: 0, run: 0), wake: SystemWake = SystemWake(),
        queue: DispatchQueue? = nil
    ) {
        boundQueue = queue
        self.clock = clock
        self.timer = timer
        self.dispatcher = dispatcher
        self.log = log
        self.store = store
        stateWriter = StateWriter(store: store, clock: clock, log: log)
        late = LateOccurrences(log: log)
        followUps = FollowUps(snoozeStore: snoozeStore, repeatStore: repeatStore)
        let (stored, problems) = store.load()
        historyTable = HistoryTable(stored)
        for problem in problems { log.record(DaemonEvent(.stateError, problem, priority: .warning)) }
        self.delaySeeds = delaySeeds
        wakeAlarm = wake.alarm
        sleepHold = wake.sleepHold
        timer.setHandler { [weak self] in self?.timerFired() }
        wakeAlarm?.setHandler { [weak self] in self?.alarmFired() }
    }

    /// Checks that the caller is on the queue the scheduler is bound to, when it is bound to one.
    func onQueue() {
        if let boundQueue { dispatchPrecondition(condition: .onQueue(boundQueue)) }
    }

    /// Has `follower` told of the changes that come from within the scheduler: fires, and the deliveries of
    /// requests finishing.
    public func followed(by follower: any ScheduleFollowing) {
        self.follower = follower
    }

    /// Replaces the whole schedule with `loaded` and re-arms, all on the queue: what a rebuild does in three steps
    /// (`basis`, `PreparedSchedule`, `commit`), which say what continues from where.
    ///
    /// - Parameter keepingPending: an unchanged notification keeps its pending occurrence as it was, which is what
    ///   computing it again would give (the first after the last one handled) unless a zone's rules changed; so
    ///   not after a change of the clock or the zone. A rebuild of 100,000 then costs the timer's queue look-ups,
    ///   not 100,000 calendar searches.
    public func install(_ loaded: LoadedSchedule, keepingPending: Bool = true) {
        onQueue()
        let basis = basis(keepingPending: keepingPending)
        let historyTable = self.historyTable
        let prepared = PreparedSchedule(
            loaded, basis: basis, now: clock.now().epochMicroseconds, history: { historyTable[$0] },
            overdue: { entry, first, now, through in self.handleMissed(entry, first: first, now: now, through: through)
            })
        commit(prepared)
    }

    /// The installed schedule as it stands, for a rebuild to prepare its replacement from (`PreparedSchedule`) on
    /// another thread; until `commit`, what is handled meanwhile is noted, so that it is not handled again after.
    func basis(keepingPending: Bool) -> PreparedSchedule.Basis {
        onQueue()
        let generation = swap.beginPreparing()
        return PreparedSchedule.Basis(
            generation: generation, entries: entries, queue: queue, systemZone: systemZone,
            processedThrough: processedThrough, keepingPending: keepingPending, delaySeeds: delaySeeds,
            histories: historyTable, reportedSkips: late.reportedSkips,
            hasSnoozesOrRepeats: !followUps.isEmpty)
    }

    /// A load that failed: nothing will be committed.
    func abandonBasis() {
        onQueue()
        swap.abandon()
    }

    /// Replaces the whole schedule with `prepared` and re-arms, in a step that does not grow with the schedule
    /// unless its entries changed since its basis (a request placed or withdrawn, the clock set): then it is
    /// prepared again here. Returns the schedule replaced, to be freed off the queue.
    @discardableResult
    func commit(_ prepared: PreparedSchedule) -> ReplacedSchedule {
        onQueue()
        guard swap.isCurrent(prepared.generation) else {
            let replaced = ReplacedSchedule(entries: entries, queue: queue)
            install(prepared.loaded, keepingPending: prepared.keepingPending)
            return replaced
        }
        let replaced = ReplacedSchedule(entries: entries, queue: queue)
        systemZone = prepared.loaded.systemZone
        entries = prepared.loaded.notifications
        queue = prepared.queue
        wakeDue = prepared.wakeDue
        coalesces = prepared.coalesces
        // An occurrence the replaced schedule handled while this one was prepared is not handled again.
        swap.committed(newIndex: prepared.newIndex)
        let now = Date(epochMicroseconds: prepared.now)
        if !prepared.firstSeen.isEmpty {
            // Independent of each other, and each long for a first start of many: side by side then.
            let historyTable = self.historyTable
            let store = self.store
            let firstSeen = prepared.firstSeen
            let table = prepared.firstSeenTable
            ParallelWork.perform(iterations: 2, threads: firstSeen.count < 10_000 || table != nil ? 1 : 2) { part in
                if part == 0 {
                    if let table {
                        historyTable.recordFirstSeen(table)
                    } else {
                        historyTable.recordFirstSeen(firstSeen, at: now)
                    }
                } else {
                    store.recordFirstSeen(firstSeen, at: now)
                }
            }
        }
        for index in prepared.pastInstants { late.tellPastInstants(of: entries[index].notification, now: prepared.now) }
        requests.installed(entries: prepared.pinned, entryOfID: prepared.pinnedIDs, listed: prepared.listed)
        // By the sets prepared with the schedule; made here only for a snooze or repeat that came meanwhile.
        followUps.keepOnly(
            enabled: { prepared.enabledIDs ?? PreparedSchedule.enabledIDs(entries) },
            repeating: { prepared.repeatingIDs ?? PreparedSchedule.repeatingIDs(entries) })
        if prepared.isFirstInstall { redeliverInterrupted(prepared.loaded) }
        if processedThrough == nil { processedThrough = prepared.now }
        // New first sightings are on disk before the timer is armed; the snapshot is rewritten only now and then.
        stateWriter.flushOrCompact(historyTable.all)
        rearm()
        return replaced
    }

    /// Puts one notification of a pinned source (an application's request) into the schedule at once, replacing
    /// the one of the same id, as a rebuild that read it would: nothing before now fires. The next rebuild reads
    /// it from its source like any other. Returns its next occurrence.
    ///
    /// Only while no rebuild is loading: a schedule loaded before the source changed would leave it out again.
    @discardableResult
    public func place(_ loaded: LoadedNotification) -> Date? {
        onQueue()
        let now = clock.now().epochMicroseconds
        let id = loaded.notification.id
        if let previous = requests.entry(of: id) { retire(previous) }
        swap.entriesChanged()
        let index = entries.count
        entries.append(loaded)
        requests.add(loaded, at: index)
        guard loaded.notification.isEnabled else {
            rearm()
            return nil
        }
        if historyTable[id] == nil {
            historyTable.recordFirstSeen([id], at: Date(epochMicroseconds: now))
            store.recordFirstSeen([id], at: Date(epochMicroseconds: now))
        }
        late.tellPastInstants(of: loaded.notification, now: now)
        if loaded.notification.timing.accuracy > .zero { coalesces = true }
        let next = nextOccurrence(of: loaded.notification, afterMicroseconds: now).map {
            pendingItem(loaded.notification, fireTime: $0, entry: index)
        }
        if let next {
            queue.insert(next)
            if loaded.notification.timing.wakesSystem { wakeDue[index] = next.due }
        }
        stateWriter.flush()
        rearm()
        return next.map { Date(epochMicroseconds: $0.due) }
    }

    /// Whether a pinned notification `id` (an application's request) is in the schedule.
    public func isPinned(_ id: String) -> Bool {
        onQueue()
        return requests.entry(of: id) != nil
    }

    /// Takes the pinned notifications `ids` out of the schedule at once, as a rebuild without them would (their
    /// snoozes too); unknown ids are ignored.
    public func withdraw(_ ids: [String]) {
        onQueue()
        var withdrawn = Set<String>()
        for id in ids {
            guard let index = requests.remove(id) else { continue }
            retire(index)
            withdrawn.insert(id)
        }
        guard !withdrawn.isEmpty else { return }
        followUps.drop(withdrawn)
        rearm()
    }

    private func retire(_ index: Int) {
        swap.entriesChanged()
        queue.remove(entry: index)
        wakeDue[index] = nil
        let compacting = requests.retire(index, of: entries.count)
        // Its content is let go of now: an application replacing one large request thousands of times holds no
        // more than a place per replacement until the next compaction.
        entries[index] = Self.retiredEntry
        if compacting { compact() }
    }

    /// What stands at a retired entry's place: nothing that fires, nothing that names a notification.
    private static let retiredEntry = LoadedNotification(
        notification: ScheduledNotification(id: "", title: "", trigger: Trigger()), source: "")

    /// Leaves the retired entries out, renumbering the rest: for a daemon that many requests were placed in since
    /// its last rebuild.
    private func compact() {
        var newIndex = [Int](repeating: -1, count: entries.count)
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count - requests.retired.count)
        for index in entries.indices where !requests.retired.contains(index) {
            newIndex[index] = kept.count
            kept.append(entries[index])
        }
        entries = kept
        queue = OccurrenceQueue(
            queue.items.map { .init(fireTime: $0.fireTime, due: $0.due, entry: newIndex[$0.entry]) })
        requests.renumber(newIndex)
        wakeDue = Dictionary(uniqueKeysWithValues: wakeDue.map { (newIndex[$0.key], $0.value) })
        swap.renumber(newIndex)
    }

    /// Delivers everything due, then re-arms for the next occurrence.
    public func timerFired() {
        onQueue()
        let now = clock.now().epochMicroseconds
        while let top = queue.first, top.due <= now {
            _ = queue.popFirst()
            let entry = entries[top.entry]
            let notification = entry.notification
            var resumeAfter = top.fireTime
            let timing = notification.timing
            if timing.wakesSystem { wakeDue[top.entry] = nil }
            // Missed once the end of its window is past by the threshold: not for waiting to share a wake-up, nor
            // for a delay that a restart drew anew.
            let windowEnd = top.fireTime + (timing.randomizedDelay + timing.accuracy).wholeMicroseconds
            if let handled = swap.handledAlready(entry: top.entry, fireTime: top.fireTime) {
                // Handled already, by the schedule this one replaced while it was prepared.
                resumeAfter = handled
            } else if MissedOccurrences.isMissed(fireTime: windowEnd, now: now, threshold: missedThreshold) {
                resumeAfter = handleMissed(entry, first: top.fireTime, now: now)
            } else {
                let fireTime = Date(epochMicroseconds: top.fireTime)
                historyTable.setLastOccurrence(of: notification.id, to: fireTime)
                deliver(Delivery(of: entry, fireTime: fireTime))
            }
            swap.handled(entry: top.entry, through: resumeAfter)
            if let next = nextOccurrence(of: notification, afterMicroseconds: resumeAfter) {
                let item = pendingItem(notification, fireTime: next, entry: top.entry)
                queue.insert(item)
                if timing.wakesSystem { wakeDue[top.entry] = item.due }
            }
        }
        deliverFollowUps(dueBy: Date(epochMicroseconds: now))
        processedThrough = max(processedThrough ?? now, now)
        // What was handled is on disk before the next timer is armed.
        stateWriter.flush()
        rearm()
        follower?.scheduleFired()
    }

    /// Hands an occurrence's `delivery` over (`handOff`), its history moved on to it.
    func deliver(_ delivery: Delivery) {
        store.recordOccurrence(delivery.notification.id, at: delivery.fireTime, missed: delivery.missedCount)
        startRepeats(of: delivery)
        handOff(delivery)
    }

    /// Hands `delivery` to the delivery stages, whatever made it (an occurrence, a snooze, a repeat), recorded as
    /// in flight until every backend is done with it, and each backend that is done before the others: after a
    /// crash, what was in flight is delivered again, to the backends that had not finished it, and nothing else.
    /// The machine stays awake until then for one that may have woken it, and a request's deliveries are counted
    /// until then, since whether it is finished depends on them.
    func handOff(_ delivery: Delivery) {
        onQueue()
        let id = delivery.notification.id
        let fireTime = delivery.fireTime
        let store = self.store
        // An occurrence was recorded with its history (`deliver`); a snooze or a repeat is only in flight.
        let followUp = InterruptedDelivery.FollowUp(of: delivery)
        if let followUp { store.recordFollowUp(id, at: fireTime, followUp) }
        let backendFinished: @Sendable (String) -> Void = {
            store.recordBackendFinished(id, at: fireTime, backend: $0, followUp: followUp)
        }
        let awake =
            delivery.notification.timing.wakesSystem ? sleepHold?.hold("Delivering \(id) (WakeSystem=yes)") : nil
        let requestDone = requests.deliveryStarted(id)
        let follower = requestDone == nil ? nil : self.follower
        dispatcher.dispatch(delivery, backendFinished: backendFinished) {
            store.recordFinished(id, at: fireTime, followUp: followUp)
            awake?()
            requestDone?()
            follower?.requestDeliveryFinished()
        }
    }

    /// Writes the whole state (at shutdown).
    public func saveState() {
        onQueue()
        stateWriter.compactOrFlush(historyTable.all)
    }

    /// The wall clock was set (NTP step, manual change, resume): occurrences jumped over count as missed; after
    /// a backward jump, nothing already delivered is delivered again.
    public func clockChanged() {
        onQueue()
        let now = clock.now()
        log.record(
            DaemonEvent(
                .clockChanged, "The system clock changed; now \(Timestamp.iso8601(now, fraction: .microseconds)).",
                fields: [("CHIME_NOW", Timestamp.iso8601(now, fraction: .microseconds))]))
        // A schedule prepared before the change is prepared again.
        swap.entriesChanged()
        if let processed = processedThrough, now.epochMicroseconds < processed {
            // Backward: resume from the new now, but never before what was already handled (the histories see to
            // that), so occurrences between the new now and the old one are neither repeated nor lost.
            processedThrough = now.epochMicroseconds
        }
        timerFired()
    }

    /// The occurrences of `entry` from `first` up to `through` (`now` unless given) were missed: collapse them into
    /// one `missed` event and, with `Persistent=yes`, one late delivery. Returns the instant to continue after.
    private func handleMissed(_ entry: Entry, first: Int64, now: Int64, through: Int64? = nil) -> Int64 {
        let notification = entry.notification
        let firstDate = Date(epochMicroseconds: first)
        let through = through ?? now
        let missed =
            historyTable[notification.id].map { history in
                MissedOccurrences.collapsing(
                    notification.trigger, from: firstDate, through: Date(epochMicroseconds: through),
                    history: history, systemZone: systemZone)
            }
            ?? MissedOccurrences(
                first: firstDate, last: firstDate, count: 1, deliversLate: notification.trigger.isPersistent)
        historyTable.setLastOccurrence(of: notification.id, to: missed.last)
        if !missed.deliversLate { store.recordSkipped(notification.id, at: missed.last) }
        late.tell(missed, of: notification, from: firstDate)
        if missed.deliversLate { deliver(Delivery(of: entry, fireTime: missed.last, missedCount: missed.count)) }
        return max(missed.last.epochMicroseconds, through)
    }

    /// The queue's item for the occurrence at `fireTime`: due that much later as its randomized delay says.
    private func pendingItem(_ notification: ScheduledNotification, fireTime: Int64, entry: Int) -> OccurrenceQueue.Item
    {
        PreparedSchedule.pendingItem(
            timing: notification.timing, id: notification.id, fireTime: fireTime, entry: entry, seeds: delaySeeds)
    }

    private func nextOccurrence(of notification: ScheduledNotification, afterMicroseconds after: Int64) -> Int64? {
        guard let history = historyTable[notification.id] else { return nil }
        return notification.trigger.nextOccurrence(
            after: Date(epochMicroseconds: after), history: history, systemZone: systemZone)?.epochMicroseconds
    }

    func rearm() {
        let entries = self.entries
        let wakeUp =
            coalesces ? queue.wakeUp { entries[$0].notification.timing.accuracy.wholeMicroseconds } : queue.first?.due
        let deadlines = [wakeUp.map { Date(epochMicroseconds: $0) }, followUps.firstDue, stateWriter.retryDue]
        if let first = deadlines.compactMap({ $0 }).min() {
            timer.arm(at: first)
        } else {
            timer.cancel()
        }
        rearmAlarm()
    }

    /// Delivers notification `id` once more after `duration` (the user chose `snooze`), with its content as it is
    /// then. Returns when, or `nil` when no enabled notification has that id any more.
    @discardableResult
    public func snooze(_ id: String, for duration: Duration) -> Date? {
        onQueue()
        guard
            entries.indices.contains(where: {
                entries[$0].notification.id == id && entries[$0].notification.isEnabled
                    && !requests.retired.contains($0)
            })
        else { return nil }
        let due = clock.now() + duration
        followUps.snooze(id, due: due)
        rearm()
        return due
    }

}
