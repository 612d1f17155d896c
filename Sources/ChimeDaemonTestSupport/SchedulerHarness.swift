import ChimeCore
import ChimeDaemon
import ChimeTestSupport
import Foundation

/// A `Scheduler` on a manual clock and timer, delivering to a recording dispatcher and logging to a recording log:
/// a day of schedule runs in microseconds, and every delivery and event can be asserted.
public struct SchedulerHarness {
    public let clock: ManualClock
    public let timer: ManualTimer
    public let dispatcher: RecordingDispatcher
    public let log = RecordingEventLog()
    public let scheduler: Scheduler

    /// A scheduler whose clock starts at `clock`'s now, over `store` and `snoozeStore` (what a restart finds).
    /// `delaySeeds` and `wake` as the daemon gives them (`Scheduler.init`).
    public init(
        clock: ManualClock, store: any HistoryStore = MemoryHistoryStore(), snoozeStore: (any SnoozeStore)? = nil,
        repeatStore: (any RepeatStore)? = nil, delaySeeds: DelaySeeds = DelaySeeds(host: 0, run: 0),
        wake: SystemWake = SystemWake()
    ) {
        self.clock = clock
        timer = clock.makeTimer()
        dispatcher = RecordingDispatcher(clock: clock)
        scheduler = Scheduler(
            clock: clock, timer: timer, dispatcher: dispatcher, log: log, store: store, snoozeStore: snoozeStore,
            repeatStore: repeatStore, delaySeeds: delaySeeds, wake: wake)
    }

    /// A scheduler whose clock starts at `start`, a timestamp as `TestDate.timestamp` reads it.
    public init(start: String, store: any HistoryStore = MemoryHistoryStore()) {
        self.init(clock: ManualClock(TestDate.timestamp(start)), store: store)
    }

    /// Delivered occurrences as `id@fire-time` (ISO 8601, UTC), in the order they were handed off.
    public var delivered: [String] {
        dispatcher.records.map { "\($0.id)@\(Timestamp.iso8601($0.fireTime))" }
    }

    /// The ids of deliveries not handed off exactly at their fire time (late ones for missed occurrences aside).
    public var handedOffLate: [String] {
        dispatcher.records.filter { $0.handedOffAt != $0.fireTime && $0.missedCount == 0 }.map(\.id)
    }
}
