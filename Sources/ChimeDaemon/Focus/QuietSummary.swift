import ChimeCore
import Foundation

/// What quiet releases as one delivery when it ends (`[Focus] Release=summary`): "4 notifications while quiet",
/// with a line for each, to the backends they were for.
enum QuietSummary {
    /// The summary's id: it begins with a dot, which no notification id may, so it never stands for one.
    static let id = ".quiet-summary"
    /// The most lines a summary lists before "and N more".
    static let listedLimit = 10

    /// One summary per set of backends the held deliveries were for (a notification's `Deliver=`, or the
    /// default), each with the deliveries it stands for; a single delivery for a set comes out as itself.
    static func deliveries(of held: [Delivery], at now: Date, zone: ZoneRules) -> [(Delivery, [Delivery])] {
        var groups: [(backends: [String], deliveries: [Delivery])] = []
        for delivery in held {
            if let index = groups.firstIndex(where: { $0.backends == delivery.notification.backends }) {
                groups[index].deliveries.append(delivery)
            } else {
                groups.append((delivery.notification.backends, [delivery]))
            }
        }
        return groups.map { group in
            guard group.deliveries.count > 1 else { return (group.deliveries[0], group.deliveries) }
            return (summary(of: group.deliveries, backends: group.backends, at: now, zone: zone), group.deliveries)
        }
    }

    private static func summary(of held: [Delivery], backends: [String], at now: Date, zone: ZoneRules) -> Delivery {
        var lines = held.prefix(listedLimit).map { delivery in
            "\(shortTime(delivery.fireTime, zone: zone)) \(delivery.notification.title)"
        }
        if held.count > listedLimit { lines.append("and \(held.count - listedLimit) more") }
        var notification = ScheduledNotification(
            id: id, title: "\(held.count) notifications while quiet", trigger: Trigger())
        notification.body = lines.joined(separator: "\n")
        notification.backends = backends
        notification.info = [("held_ids", held.map(\.notification.id).joined(separator: " "))]
        var delivery = Delivery(notification: notification, fireTime: now)
        delivery.isSoundSuppressed = held.allSatisfy(\.isSoundSuppressed)
        delivery.summarizes = held
        return delivery
    }

    /// `Mon 22:15`: the weekday and the wall time in `zone`.
    private static func shortTime(_ date: Date, zone: ZoneRules) -> String {
        let parts = (Timestamp.format(date, zone: zone) ?? "").split(separator: " ")
        guard parts.count >= 3 else { return Timestamp.iso8601(date) }
        return "\(parts[0]) \(parts[2].prefix(5))"
    }
}
