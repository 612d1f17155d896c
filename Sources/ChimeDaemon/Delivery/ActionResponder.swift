/// Hands the answers a backend receives to the daemon that owns the schedule.
final class ActionResponder: NotificationResponding, @unchecked Sendable {
    weak var daemon: Daemon?

    func actionInvoked(_ key: String, delivery: Delivery, backend: String) {
        daemon?.actionInvoked(key, delivery: delivery, backend: backend)
    }

    func closed(_ delivery: Delivery, reason: UInt32, backend: String) {
        daemon?.closed(delivery, reason: reason, backend: backend)
    }
}
