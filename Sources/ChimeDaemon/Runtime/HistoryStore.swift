import ChimeCore
import Foundation

/// A delivery that was handed to the backends but not known to have finished when the daemon last stopped.
public struct InterruptedDelivery: Sendable, Hashable {
    public var id: String
    public var fireTime: Date
    /// The occurrences a caught-up delivery stood for (0 for an ordinary one).
    public var missed: Int
    /// The backends that were done with it while another was still at work.
    public var finishedBackends: Set<String>
    /// A snooze or a repeat of the occurrence at `fireTime`, not the occurrence itself.
    public var followUp: FollowUp?

    /// A delivery that follows an occurrence: it moves no history, and is delivered again as what it was.
    public enum FollowUp: Sendable, Hashable {
        case snooze
        /// The `Repeat=` with this number (1 for the first).
        case repeated(Int)

        /// What `delivery` follows up, if anything.
        public init?(of delivery: Delivery) {
            if delivery.repeatNumber > 0 {
                self = .repeated(delivery.repeatNumber)
            } else if delivery.isSnoozed {
                self = .snooze
            } else {
                return nil
            }
        }
    }

    public init(
        id: String, fireTime: Date, missed: Int, finishedBackends: Set<String> = [], followUp: FollowUp? = nil
    ) {
        self.id = id
        self.fireTime = fireTime
        self.missed = missed
        self.finishedBackends = finishedBackends
        self.followUp = followUp
    }
}

/// Where the scheduler keeps what must survive a restart: per notification its first sighting (the anchor of
/// `Every=` and `Count=`) and its last handled occurrence, and the deliveries still in flight.
///
/// The scheduler records each handed-off occurrence before it re-arms its timer, each backend that is done with it
/// before the others, and its completion when the backends are done; after a crash it delivers again what was in
/// flight to the backends that had not finished it, so nothing is dropped and only what was in flight can be
/// repeated, by a backend that had not finished it.
public protocol HistoryStore: AnyObject, Sendable {
    /// What was stored, and any problem found reading it (already dealt with: the store starts afresh).
    func load() -> (histories: [String: DeliveryHistory], problems: [String])
    /// The deliveries in flight when the stored state was written, as found by `load()`.
    func interrupted() -> [InterruptedDelivery]
    /// Notes that `ids` were seen for the first time, at `date`.
    func recordFirstSeen(_ ids: [String], at date: Date)
    /// Notes that the occurrence of `id` at `occurrence` was handed to the backends (in flight until finished). Handed
    /// over again (after a restart), it keeps the backends that had finished it.
    func recordOccurrence(_ id: String, at occurrence: Date, missed: Int)
    /// Notes that a snooze or a repeat (`followUp`) of the occurrence of `id` at `occurrence` was handed to the
    /// backends (in flight until finished), without moving the history. Handed over again, it keeps the backends
    /// that had finished it.
    func recordFollowUp(_ id: String, at occurrence: Date, _ followUp: InterruptedDelivery.FollowUp)
    /// Notes that `backend` is done with the occurrence of `id` at `occurrence` (or its `followUp`) while another
    /// backend is still at work, and makes that durable soon.
    func recordBackendFinished(
        _ id: String, at occurrence: Date, backend: String, followUp: InterruptedDelivery.FollowUp?)
    /// Notes that occurrences of `id` up to `occurrence` were handled without a delivery (missed).
    func recordSkipped(_ id: String, at occurrence: Date)
    /// Notes that the delivery of `id` at `occurrence` (or its `followUp`) is finished, and makes that durable soon.
    func recordFinished(_ id: String, at occurrence: Date, followUp: InterruptedDelivery.FollowUp?)
    /// Makes the recorded changes durable; called before the timer is re-armed. When it throws (the disk is
    /// full), what it could not write is kept, in order, and the next call writes it before anything newer.
    func flush() throws
    /// Replaces the stored state by `histories` and the deliveries still in flight (at stop).
    func compact(_ histories: [String: DeliveryHistory]) throws
    /// Replaces the stored state by `histories` (the table as it stands) and the deliveries in flight, without making
    /// the caller wait for it (after a rebuild, once `wantsCompaction` says the journal has grown): what is recorded
    /// from now on is kept apart from it. `finished` runs, on any thread, once it is done, with the error when it
    /// failed (nothing is lost then: what it was to replace stays).
    /// - Throws: when it cannot start, having written nothing; `finished` is not called then.
    func startCompaction(
        _ histories: [String: DeliveryHistory], finished: @escaping @Sendable ((any Error)?) -> Void) throws
    /// Whether enough has been recorded since the last compaction that rewriting the snapshot pays off.
    var wantsCompaction: Bool { get }
}

extension HistoryStore {
    /// Of the occurrence itself.
    public func recordBackendFinished(_ id: String, at occurrence: Date, backend: String) {
        recordBackendFinished(id, at: occurrence, backend: backend, followUp: nil)
    }

    /// Of the occurrence itself.
    public func recordFinished(_ id: String, at occurrence: Date) {
        recordFinished(id, at: occurrence, followUp: nil)
    }

    /// At once, as `compact`: for stores whose compaction costs little.
    public func startCompaction(
        _ histories: [String: DeliveryHistory], finished: @escaping @Sendable ((any Error)?) -> Void
    ) throws {
        try compact(histories)
        finished(nil)
    }
}

extension InterruptedDelivery {
    /// How stores key a delivery in flight: its notification and its occurrence, to the microsecond, and which
    /// follow-up of it (`+snooze`, `+repeat.2`) it is.
    public static func key(_ id: String, _ date: Date, _ followUp: FollowUp? = nil) -> String {
        let occurrence = "\(id)@\(date.epochMicroseconds)"
        switch followUp {
        case nil: return occurrence
        case .snooze: return occurrence + "+snooze"
        case .repeated(let number): return occurrence + "+repeat.\(number)"
        }
    }

    /// This delivery's key (`key(_:_:_:)`).
    public var key: String { Self.key(id, fireTime, followUp) }
}
