import ChimeCore
import Foundation

/// `Repeat=`: a delivered notification comes again after each of its spans, the last one over and over, until the
/// user acknowledges it (`acknowledge`). Any delivery of it (an occurrence, a snooze) starts its repeats afresh.
extension Scheduler {
    /// A notification repeating until acknowledged: its next repeat, for the snapshot and `chimectl ack`.
    public struct Repeating: Sendable {
        public var id: String
        public var next: Date
        /// Which repeat comes next: 1 for the first.
        public var number: Int
    }

    /// The notifications repeating until acknowledged, soonest first.
    public var repeating: [Repeating] {
        repeats.all.map { Repeating(id: $0.id, next: Date(epochMicroseconds: $0.due), number: $0.number) }
    }

    /// After `delivery` (not itself a repeat): its first repeat, when its notification has `Repeat=`.
    func startRepeats(of delivery: Delivery) {
        guard delivery.repeatNumber == 0, let delay = delivery.notification.repeatDelay(after: 0) else { return }
        let now = clock.now().epochMicroseconds
        repeats.insert(
            .init(
                id: delivery.notification.id, due: now + delay.wholeMicroseconds, number: 1,
                fireTime: delivery.fireTime.epochMicroseconds))
        saveRepeats()
    }

    /// Delivers the repeats due by `now` with the notification's content as it is then, each followed by the next
    /// one. A repeat that fell due while chimed was down comes at once, once; the next is counted from now.
    func deliverRepeats(dueBy now: Int64) {
        let due = repeats.takeDue(by: now)
        guard !due.isEmpty else { return }
        for pending in due {
            guard
                let index = entries.lastIndex(where: { $0.notification.id == pending.id }),
                !retired.contains(index), entries[index].notification.isEnabled,
                let delay = entries[index].notification.repeatDelay(after: pending.number)
            else { continue }
            var delivery = Delivery(of: entries[index], fireTime: Date(epochMicroseconds: pending.fireTime))
            delivery.repeatNumber = pending.number
            // The badge already counted this notification when it was first delivered.
            delivery.notification.badge = nil
            repeats.insert(
                .init(
                    id: pending.id, due: now + delay.wholeMicroseconds, number: pending.number + 1,
                    fireTime: pending.fireTime))
            dispatcher.dispatch(delivery) {}
        }
        saveRepeats()
    }

    /// The user acknowledged the notifications `ids` (`by` says how: "the desktop action 'ack'", "chimectl ack",
    /// "the application"): their repeats stop, each logged. Returns the ids that were repeating.
    @discardableResult
    public func acknowledge(_ ids: Set<String>, by source: String) -> Set<String> {
        let stopped = repeats.drop(ids)
        guard !stopped.isEmpty else { return [] }
        saveRepeats()
        rearm()
        for id in stopped.sorted() {
            let title = entries.last { $0.notification.id == id }?.notification.title ?? ""
            log.record(
                DaemonEvent(
                    .acknowledged, "\(id): \(title) (acknowledged by \(source); no more repeats)",
                    fields: [("CHIME_ID", id), ("CHIME_TITLE", title), ("CHIME_ACKNOWLEDGED_BY", source)]))
        }
        return stopped
    }

    func saveRepeats() {
        repeatStore?.save(repeats.all.map { ($0.id, $0.due, $0.number, $0.fireTime) })
    }
}
