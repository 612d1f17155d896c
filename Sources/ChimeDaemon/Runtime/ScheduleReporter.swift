import ChimeCore
import Foundation

/// Tells the outside what the schedule holds: the service manager's status line (`STATUS=`) and
/// `RUNTIME_DIR/schedule.json` for `chimectl`, after every rebuild and, at most every `refreshInterval`, after
/// fires (one update after a burst, not one per fire).
///
/// Bound to the scheduler's queue (checked).
final class ScheduleReporter: @unchecked Sendable {
    /// What the last rebuild left, for the status line and the snapshot.
    struct RebuildFacts {
        var lastRebuild: Date?
        /// When the load of the last finished rebuild began: `chimectl` waits for one that began after its request.
        var lastLoadStarted: Date?
        var rebuilds = 0
        var lastError: String?
        var problems: [String] = []
        var defaultBackends: [String] = ["journal"]
    }

    var facts = RebuildFacts()
    private let queue: DispatchQueue
    private let scheduler: Scheduler
    private let focus: FocusGate
    private let badge: InstanceBadge
    private let snapshot: SnapshotWriter
    private let messages: ServiceManagerMessages
    private let addedRequests: AddedRequests
    private let options: DaemonOptions
    private let clock: any WallClock
    /// Whether a refresh is already scheduled.
    private var refreshPending = false
    /// What waits for the snapshot after requests changed (`requestsChanged`).
    private var waitingForSnapshot: [@Sendable () -> Void] = []
    /// Past this, the snapshot last written lists no more than it did (`Scheduler.Status.earliestThrough`).
    private var listedThrough: Date?
    /// The status of the last refresh, and whether anything but the count of what is scheduled may have changed
    /// since: when not, the next refresh reuses it instead of making a thousand items again.
    private var lastStatus: Scheduler.Status?
    private var listingChanged = true

    static let refreshInterval = DispatchTimeInterval.milliseconds(100)

    /// How many of the soonest notifications (and of those with nothing left to fire) `schedule.json` lists; the
    /// requests of `chimectl add` are listed however many there are. Rewritten after fires, the file must stay
    /// small whatever the size of the schedule.
    static let listedLimit = 1_000

    init(
        queue: DispatchQueue, scheduler: Scheduler, focus: FocusGate, badge: InstanceBadge,
        messages: ServiceManagerMessages, addedRequests: AddedRequests, options: DaemonOptions, clock: any WallClock
    ) {
        self.queue = queue
        self.scheduler = scheduler
        self.focus = focus
        self.badge = badge
        self.snapshot = SnapshotWriter(path: options.snapshotPath)
        self.messages = messages
        self.addedRequests = addedRequests
        self.options = options
        self.clock = clock
        scheduler.followed(by: self)
        focus.followed(by: self)
    }

    /// `STATUS=`: `12 scheduled; next: standup at Mon 2026-11-30 09:55:00 CET`.
    func statusText() -> String {
        dispatchPrecondition(condition: .onQueue(queue))
        var text = "\(scheduler.scheduledCount) scheduled"
        if let next = scheduler.nextUp {
            text += "; next: \(next.id) at \(Timestamp.format(next.date, zone: next.zone) ?? "?")"
        } else {
            text += "; nothing due"
        }
        if badge.count > 0 { text += "; badge: \(badge.count)" }
        let quiet = focus.status
        if quiet.isQuiet { text += "; quiet, \(quiet.held) held" }
        if let lastError = facts.lastError { text += "; last error: \(lastError)" }
        return text
    }

    /// After a rebuild: `READY=1` with the status first, then the snapshot (which `chimectl` waits for), off the
    /// critical path; `afterSnapshot` runs once the snapshot is written.
    func rebuilt(_ facts: RebuildFacts, afterSnapshot: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.facts = facts
        messages.send("READY=1\nSTATUS=\(statusText())")
        refresh()
        snapshot.afterPendingWrite(afterSnapshot)
    }

    /// An application's request was placed in the schedule or taken out without a rebuild: the status line and
    /// the snapshot follow at once, shared by the requests that come meanwhile, and `written` runs once the snapshot
    /// holds the change (`chimectl list` then shows it, as after a rebuild).
    func requestsChanged(then written: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        waitingForSnapshot.append(written)
        guard waitingForSnapshot.count == 1 else { return }
        queue.async { [self] in
            let waiting = waitingForSnapshot
            waitingForSnapshot = []
            messages.send("STATUS=\(statusText())")
            refresh()
            snapshot.afterPendingWrite { for written in waiting { written() } }
        }
    }

    /// An application's request was placed anew, due at `due`. When the snapshot would not list it (due no sooner
    /// than the last of the soonest `listedLimit`: ties are listed in the schedule's order, where a request placed
    /// comes last), it changes no more than the count: `placed` runs at once, and the snapshot follows within
    /// `refreshInterval`. Otherwise as `requestsChanged`. A thousand listed notifications formatted again were most
    /// of what an `Add` waited for.
    func requestPlaced(due: Date, then placed: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if let listedThrough, due >= listedThrough, waitingForSnapshot.isEmpty {
            scheduleChanged(countOnly: true)
            placed()
        } else {
            requestsChanged(then: placed)
        }
    }

    /// The schedule changed (a fire, a delivery of a request done): the status line and the snapshot follow, at most
    /// every `refreshInterval`.
    /// - Parameter countOnly: only requests the snapshot does not list were placed (`requestPlaced`).
    func scheduleChanged(countOnly: Bool = false) {
        dispatchPrecondition(condition: .onQueue(queue))
        if !countOnly { listingChanged = true }
        guard !refreshPending else { return }
        refreshPending = true
        queue.asyncAfter(deadline: .now() + Self.refreshInterval) { [self] in
            refreshPending = false
            messages.send("STATUS=\(statusText())")
            refresh(countOnly: !listingChanged)
        }
    }

    private func refresh(countOnly: Bool = false) {
        var status: Scheduler.Status
        if countOnly, let lastStatus {
            status = lastStatus
            status.scheduledCount = scheduler.scheduledCount
            status.finishedPinnedSources = []
        } else {
            status = scheduler.status(limit: Self.listedLimit)
            lastStatus = status
            listingChanged = false
        }
        listedThrough = status.earliestThrough
        // What has fired is recorded in the state before this runs: the request can go.
        if !status.finishedPinnedSources.isEmpty { addedRequests.removeFinished(status.finishedPinnedSources) }
        let snapshotFacts = SnapshotWriter.Facts(
            pid: getpid(), instance: options.instance, lastRebuild: facts.lastRebuild,
            lastLoadStarted: facts.lastLoadStarted, rebuilds: facts.rebuilds, lastError: facts.lastError,
            configDirectories: options.configDirectories, stateDirectory: options.stateDirectory,
            problems: facts.problems,
            defaultBackends: facts.defaultBackends, badge: badge.count, quiet: focus.status,
            repeating: scheduler.repeating)
        snapshot.write(status: status, facts: snapshotFacts, now: clock.now())
    }
}

extension ScheduleReporter: ScheduleFollowing, FocusFollowing {
    func scheduleFired() { scheduleChanged() }

    func requestDeliveryFinished() {
        queue.async { self.scheduleChanged() }
    }

    func focusChanged() { scheduleChanged() }
}
