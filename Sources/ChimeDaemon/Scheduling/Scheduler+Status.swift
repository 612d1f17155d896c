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
            /// `RandomizedDelaySec=` and the rest, and by how much this occurrence's delivery is delayed (µs):
            /// `next` is the occurrence plus that.
            public var timing = DeliveryTiming()
            public var delay: Int64 = 0
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
