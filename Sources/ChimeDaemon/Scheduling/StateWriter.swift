import ChimeCore
import Foundation

/// Makes what the scheduler recorded durable (`HistoryStore.flush`, `compact`) and reports when that fails:
/// once when the failure begins and once when a write succeeds again, not at every fire in between.
///
/// The store keeps what it could not write, and every later write (each fire, each rebuild, and every
/// `retryInterval` meanwhile, when the scheduler's timer wakes for `retryDue`) tries it again. Not thread-safe: the
/// scheduler's (but for the end of a compaction in the background).
final class StateWriter: @unchecked Sendable {
    private let store: any HistoryStore
    private let clock: any WallClock
    private let log: any EventLog
    /// While state cannot be written, the timer also wakes this often to write it again, so that what the store
    /// keeps in memory reaches the disk soon after space returns even when nothing falls due for hours.
    var retryInterval: Duration = .seconds(10)
    /// When the next attempt is due, while state cannot be written.
    private(set) var retryDue: Date?
    /// While state cannot be written: since when, and how many writes have failed.
    private var failure: (since: Date, attempts: Int)?
    /// Whether compacting the state failed (while the journal could still be written) and was reported; a compaction
    /// in the background ends on another thread.
    private let compactionFailed = Locked(false)

    init(store: any HistoryStore, clock: any WallClock, log: any EventLog) {
        self.store = store
        self.clock = clock
        self.log = log
    }

    /// Writes what was recorded since the last write.
    func flush() {
        write { try store.flush() }
    }

    /// At each rebuild: starts a compaction in the background when the store asks for one, else flushes.
    func flushOrCompact(_ histories: @autoclosure () -> [String: DeliveryHistory]) {
        guard store.wantsCompaction else { return flush() }
        let histories = histories()
        compacting { try store.startCompaction(histories) { [self] error in compactionEnded(error) } }
    }

    /// Rewrites the snapshot of the state at once (at stop).
    func compactOrFlush(_ histories: [String: DeliveryHistory]) {
        compacting {
            try store.compact(histories)
            compactionEnded(nil)
        }
    }

    /// Runs `compaction`, or, when that fails (a full disk has room for a record but not a snapshot), makes sure the
    /// journal at least is written: it holds everything, and the next rebuild tries again. The snapshot's failure
    /// alone is reported once, as a warning; with the journal's it is part of that.
    private func compacting(_ compaction: () throws -> Void) {
        write {
            do {
                try compaction()
            } catch {
                try store.flush()
                compactionEnded(error)
            }
        }
    }

    /// Reports the first compaction that failed after one that did not.
    private func compactionEnded(_ error: (any Error)?) {
        let reported = compactionFailed.withLock { failed in
            defer { failed = error != nil }
            return failed
        }
        guard let error, !reported else { return }
        log.record(
            DaemonEvent(
                .stateError,
                "Cannot compact the state (\(error)); the journal keeps it, compacting at a later rebuild",
                fields: [("CHIME_ERROR", "\(error)")], priority: .warning))
    }

    /// Writes state, reporting (not throwing) a failure: the schedule goes on, the operator is told once.
    private func write(_ attempt: () throws -> Void) {
        do {
            try attempt()
        } catch {
            let now = clock.now()
            retryDue = now + retryInterval
            if let failure {
                self.failure = (failure.since, failure.attempts + 1)
                return
            }
            failure = (now, 1)
            log.record(
                DaemonEvent(
                    .stateError,
                    "Cannot record state: \(error); keeping it in memory and trying again at each fire and every "
                        + "\(Timespan(retryInterval) ?? .infinity)",
                    fields: [("CHIME_ERROR", "\(error)")], priority: .error))
            return
        }
        retryDue = nil
        guard let failure else { return }
        self.failure = nil
        log.record(
            DaemonEvent(
                .stateError,
                "State recorded again, after \(failure.attempts) failed attempt(s) since "
                    + "\(Timestamp.iso8601(failure.since, fraction: .microseconds)); nothing recorded meanwhile was lost.",
                priority: .notice))
    }
}
