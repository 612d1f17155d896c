import ChimeCore
import Foundation

extension Scheduler {
    /// What the schedule holds now, for `STATUS=`, `chimectl list` and the snapshot.
    public struct Status: Sendable {
        public struct Item: Sendable {
            public var id: String
            public var title: String
            public var source: String
            public var next: Date
            public var zone: ZoneRules
            public var trigger: Trigger
            public var backends: [String]
            public var thread: String?
            /// `RandomizedDelaySec=` and the rest, and by how much this occurrence's delivery is delayed: `next` is
            /// the occurrence plus that.
            public var timing = DeliveryTiming()
            public var delay = Duration.zero
        }

        /// A notification with nothing left to fire.
        public struct IdleItem: Sendable {
            public var id: String
            public var title: String
            public var source: String
            public var trigger: Trigger
            /// `false` for `Enabled=no`; otherwise everything it had to fire is past.
            public var isEnabled: Bool
            public var thread: String?
        }

        /// The notifications with a next occurrence, earliest first: the `limit` earliest, and those `pinned`.
        public var scheduled: [Item]
        /// How many notifications have a next occurrence, listed or not.
        public var scheduledCount: Int
        /// When more are scheduled than the `limit` earliest: when the last of those is due. One due later is not
        /// listed (unless pinned).
        public var earliestThrough: Date?
        /// Notifications loaded but with nothing left to fire (past one-shots, exhausted counts, disabled), by id:
        /// at most `limit` of them.
        public var idle: [String]
        /// The same notifications as `idle`, in the same order, with what `chimectl list --all` shows of them.
        public var idleItems: [IdleItem] = []
        /// How many notifications have nothing left to fire, listed or not.
        public var idleCount: Int
        /// The sources of the pinned notifications that have nothing left to fire, no delivery in flight and no snooze
        /// pending, all of them.
        public var finishedPinnedSources: [String] = []
    }
}

/// The read-only view of the schedule: what `STATUS=`, `schedule.json`, `chimectl list` and an application's
/// `GetPending` show of it.
extension Scheduler {
    /// Whether a schedule was installed (the first install delivers what was missed while chimed was down).
    var isInstalled: Bool { processedThrough != nil }

    /// The system zone the installed schedule was loaded in; `nil` before the first install.
    public var installedZone: ZoneRules? { isInstalled ? systemZone : nil }

    /// How many notifications have a next occurrence.
    public var scheduledCount: Int { queue.count }

    /// The instant the timer is armed for.
    public var armedDeadline: Date? { timer.deadline }

    /// The earliest pending occurrence: which notification, when, and the zone to show it in.
    public var nextUp: (id: String, title: String, date: Date, zone: ZoneRules)? {
        guard let first = queue.first else { return nil }
        let notification = entries[first.entry].notification
        return (
            notification.id, notification.title, Date(epochMicroseconds: first.due),
            notification.trigger.timeZone ?? systemZone
        )
    }

    /// The pinned notifications whose id begins with `prefix` and that have a next occurrence (an application's
    /// pending requests), in no particular order.
    public func pending(idPrefix prefix: String) -> [(id: String, source: String, next: Date)] {
        onQueue()
        let wanted = requests.entries(withIDPrefix: prefix)
        guard !wanted.isEmpty else { return [] }
        return queue.items.filter { wanted.contains($0.entry) }.map { item in
            (entries[item.entry].notification.id, entries[item.entry].source, Date(epochMicroseconds: item.due))
        }
    }

    /// The schedule as it stands: the `limit` earliest notifications and the pinned ones, so that the cost does not
    /// grow with the size of the schedule (a million notifications are not listed after every fire).
    public func status(limit: Int = .max) -> Status {
        onQueue()
        return Status(
            entries: entries, queue: queue, requests: requests, followUps: followUps, systemZone: systemZone,
            limit: limit)
    }
}

extension Scheduler.Status {
    /// What `entries` and `queue` hold: the `limit` earliest, the requests `requests` always lists, and at
    /// most `limit` with nothing left to fire.
    init(
        entries: [LoadedNotification], queue: OccurrenceQueue, requests: RequestIndex, followUps: FollowUps,
        systemZone: ZoneRules, limit: Int
    ) {
        var shown = queue.earliest(limit)
        let earliestThrough = queue.count > limit ? shown.last.map { Date(epochMicroseconds: $0.due) } : nil
        let listed = requests.listed
        if !listed.isEmpty {
            let soonest = Set(shown.map(\.entry))
            shown += queue.items.filter { listed.contains($0.entry) && !soonest.contains($0.entry) }
        }
        // Ordered as the queue's items, sixteen bytes each, rather than as the items made of them, which are large
        // enough for the sort's moves to be most of a status of a thousand.
        shown.sort { a, b in
            a.due != b.due ? a.due < b.due : entries[a.entry].notification.id < entries[b.entry].notification.id
        }
        let scheduled = shown.map { item -> Item in
            let notification = entries[item.entry].notification
            return Item(
                id: notification.id, title: notification.title, source: entries[item.entry].source,
                next: Date(epochMicroseconds: item.due), zone: notification.trigger.timeZone ?? systemZone,
                trigger: notification.trigger, backends: notification.backends, thread: notification.thread,
                timing: notification.timing, delay: .microseconds(item.due - item.fireTime))
        }
        // Runs after fires: the scan of the whole schedule only when something has nothing left to fire.
        var idle: [String] = []
        var idleItems: [IdleItem] = []
        var finishedPinned: [String] = []
        let retired = requests.retired
        if entries.count > queue.count + retired.count {
            var busy = [Bool](repeating: false, count: entries.count)
            for item in queue.items { busy[item.entry] = true }
            for index in retired { busy[index] = true }
            var idleEntries: [Int] = []
            for index in entries.indices where !busy[index] && idleEntries.count < limit { idleEntries.append(index) }
            idleEntries.sort { entries[$0].notification.id < entries[$1].notification.id }
            idle = idleEntries.map { entries[$0].notification.id }
            idleItems = idleEntries.map { index in
                let notification = entries[index].notification
                return IdleItem(
                    id: notification.id, title: notification.title, source: entries[index].source,
                    trigger: notification.trigger, isEnabled: notification.isEnabled, thread: notification.thread)
            }
            // Until its delivery is done, a crash must find it to deliver it again.
            finishedPinned = requests.finished(
                isIdle: { !busy[$0] }, id: { entries[$0].notification.id }, isFollowedUp: followUps.contains
            ).map { entries[$0].source }
        }
        self.init(
            scheduled: scheduled, scheduledCount: queue.count, earliestThrough: earliestThrough, idle: idle,
            idleItems: idleItems,
            idleCount: entries.count - queue.count - retired.count, finishedPinnedSources: finishedPinned.sorted())
    }
}
