import ChimeCore
import Foundation

/// Each notification's delivery history, by id: written on the scheduler's queue only, and read there and by the
/// preparation of a rebuild on another thread (`PreparedSchedule`), which must not stop deliveries while it reads.
///
/// A lock guards the writes and the other thread's reads; the queue, the only writer, reads without it. A copy of
/// the table for the other thread would be copied again, whole, by the first delivery that wrote to it.
final class HistoryTable: Sendable {
    private let histories: Locked<[String: DeliveryHistory]>

    init(_ histories: [String: DeliveryHistory]) {
        self.histories = Locked(histories)
    }

    /// On the scheduler's queue.
    subscript(id: String) -> DeliveryHistory? { histories.readWithoutLockOnWritingThread { $0[id] } }

    /// On the scheduler's queue: the whole table (to write a snapshot of the state).
    var all: [String: DeliveryHistory] { histories.readWithoutLockOnWritingThread { $0 } }

    /// From another thread, while the queue may be writing.
    func read(_ id: String) -> DeliveryHistory? {
        histories.withLock { $0[id] }
    }

    /// On the scheduler's queue.
    func setLastOccurrence(of id: String, to occurrence: Date) {
        histories.withLock { $0[id]?.lastOccurrence = occurrence }
    }

    /// Whether no history is known, from any thread.
    var isEmpty: Bool { histories.withLock { $0.isEmpty } }

    /// On the scheduler's queue: the histories of ids first seen, made elsewhere (`PreparedSchedule.firstSeenTable`),
    /// where they are not known yet; taken whole when nothing else is.
    func recordFirstSeen(_ table: [String: DeliveryHistory]) {
        histories.withLock { histories in
            if histories.isEmpty {
                histories = table
            } else {
                histories.merge(table) { known, _ in known }
            }
        }
    }

    /// On the scheduler's queue: `ids` first seen at `date`, where they are not known yet.
    func recordFirstSeen(_ ids: [String], at date: Date) {
        let history = DeliveryHistory(firstSeen: date)
        histories.withLock { histories in
            histories.reserveCapacity(histories.count + ids.count)
            // One look-up for each id, where asking first and then inserting made two: a first start of a million
            // does this on the queue.
            histories.merge(ids.lazy.map { ($0, history) }) { known, _ in known }
        }
    }
}
