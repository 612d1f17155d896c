import ChimeCore
import Foundation

/// Deliveries after a delivery (`FollowUps`): a snooze brings a notification once more after `SnoozeSec=`, and
/// `Repeat=` brings it again after each of its spans, the last one over and over, until the user acknowledges it
/// (`acknowledge`). Any delivery of it (an occurrence, a snooze) starts its repeats afresh.
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
        followUps.pendingRepeats.map {
            Repeating(id: $0.id, next: $0.due, number: $0.number)
        }
    }

    /// After `delivery` (not itself a repeat): its first repeat, when its notification has `Repeat=`.
    func startRepeats(of delivery: Delivery) {
        guard delivery.repeatNumber == 0, let delay = delivery.notification.repeatDelay(after: 0) else { return }
        followUps.startRepeats(of: delivery.notification.id, due: clock.now() + delay, fireTime: delivery.fireTime)
    }

    /// Delivers the snoozes and repeats due by `now`, in one pass, with the notification's content as it is then;
    /// a repeat is followed by the next one. What fell due while chimed was down comes at once, once; the next
    /// repeat is counted from now.
    func deliverFollowUps(dueBy now: Date) {
        let due = followUps.takeDue(by: now)
        guard !due.isEmpty else { return }
        var repeated = false
        for followUp in due {
            var delivery: Delivery
            switch followUp {
            case .snooze(let snooze):
                // The latest entry of the id: one that `place` replaced comes before it.
                guard let entry = entries.last(where: { $0.notification.id == snooze.id }) else { continue }
                delivery = Delivery(of: entry, fireTime: snooze.due)
                delivery.isSnoozed = true
                startRepeats(of: delivery)
            case .repeated(let pending):
                repeated = true
                guard
                    let index = entries.lastIndex(where: { $0.notification.id == pending.id }),
                    !requests.retired.contains(index), entries[index].notification.isEnabled,
                    let delay = entries[index].notification.repeatDelay(after: pending.number)
                else { continue }
                delivery = Delivery(of: entries[index], fireTime: pending.fireTime)
                delivery.repeatNumber = pending.number
                followUps.repeatAgain(pending, due: now + delay)
            }
            // The badge already counted this notification when it was first delivered.
            delivery.notification.badge = nil
            // Not an occurrence: in flight, but the history does not see it.
            handOff(delivery)
        }
        if repeated { followUps.saveRepeats() }
    }

    /// The user acknowledged the notifications `ids` (`by` says how: "the desktop action 'ack'", "chimectl ack",
    /// "the application"): their repeats stop, each logged. Returns the ids that were repeating.
    @discardableResult
    public func acknowledge(_ ids: Set<String>, by source: String) -> Set<String> {
        onQueue()
        let stopped = followUps.stopRepeats(ids)
        guard !stopped.isEmpty else { return [] }
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
}
