import ChimeCore
import Foundation

/// What the journal is told of occurrences that did not come on time: missed ones, collapsed into one entry
/// (`missed`, or `caught-up` for a `Persistent=yes` notification that is delivered once, late), one-shot
/// instants already past when a notification is first seen (`skipped-past`, once per notification), and
/// deliveries that the end of the previous run interrupted, delivered again.
///
/// A value the scheduler holds, used on its queue.
struct LateOccurrences {
    private let log: any EventLog
    /// The notifications whose past `At=` was told, so that a rebuild does not tell it again.
    private(set) var reportedSkips: Set<String> = []

    init(log: any EventLog) {
        self.log = log
    }

    /// Tells of `missed`, the occurrences of `notification` that were missed from `first` on.
    func tell(_ missed: MissedOccurrences, of notification: ScheduledNotification, from first: Date) {
        let fields: [(name: String, value: String)] = [
            ("CHIME_ID", notification.id), ("CHIME_TITLE", notification.title),
            ("CHIME_FIRE_TIME", Timestamp.iso8601(first, fraction: .microseconds)),
            ("CHIME_LAST_FIRE_TIME", Timestamp.iso8601(missed.last, fraction: .microseconds)),
            ("CHIME_MISSED", String(missed.count)),
        ]
        if missed.deliversLate {
            log.record(
                DaemonEvent(
                    .caughtUp, "\(notification.id): delivering late what was missed (\(missed.count) occurrence(s)).",
                    fields: fields))
        } else {
            log.record(
                DaemonEvent(
                    .missed,
                    "\(notification.id): missed \(missed.count) occurrence(s); Persistent=no, not delivering late.",
                    fields: fields))
        }
    }

    /// Tells, once, that a one-shot instant of `notification` was already past at `now` (µs since the epoch) when
    /// it was first seen.
    mutating func tellPastInstants(of notification: ScheduledNotification, now: Int64) {
        guard let past = notification.trigger.instants.last(where: { $0.epochMicroseconds <= now }),
            reportedSkips.insert(notification.id).inserted
        else { return }
        log.record(
            DaemonEvent(
                .skippedPast,
                "\(notification.id): At=\(Timestamp.iso8601(past)) is already past; not delivering it.",
                fields: [
                    ("CHIME_ID", notification.id), ("CHIME_TITLE", notification.title),
                    ("CHIME_FIRE_TIME", Timestamp.iso8601(past, fraction: .microseconds)),
                ]))
    }

    /// Tells that `interrupted`, in flight when the previous run ended, is delivered again to the backends that had
    /// not finished it.
    /// `delivery`, `snooze of the delivery`, `repeat 2 of the delivery`.
    private static func what(_ followUp: InterruptedDelivery.FollowUp?) -> String {
        switch followUp {
        case nil: "delivery"
        case .snooze: "snooze of the delivery"
        case .repeated(let number): "repeat \(number) of the delivery"
        }
    }

    func tellRedelivery(of interrupted: InterruptedDelivery) {
        let finished = interrupted.finishedBackends.sorted()
        let except = finished.isEmpty ? "" : " except to \(finished.joined(separator: ", ")), which had finished"
        log.record(
            DaemonEvent(
                .deliveryFailed,
                "\(interrupted.id): the \(Self.what(interrupted.followUp)) due at "
                    + "\(Timestamp.iso8601(interrupted.fireTime)) was interrupted "
                    + "by the end of the previous run; delivering it again\(except).",
                fields: [
                    ("CHIME_ID", interrupted.id),
                    ("CHIME_FIRE_TIME", Timestamp.iso8601(interrupted.fireTime, fraction: .microseconds)),
                ], priority: .warning))
    }
}
