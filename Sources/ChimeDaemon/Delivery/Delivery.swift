import ChimeCore
import Foundation

/// One occurrence of a notification being handed to a backend.
public struct Delivery: Sendable {
    public var notification: ScheduledNotification
    /// The occurrence: when it was due.
    public var fireTime: Date
    /// How many occurrences this delivery stands for when missed ones were collapsed (0 for an ordinary one).
    public var missedCount: Int
    /// The badge number after this delivery's `Badge=` took effect, when it has one.
    public var badge: Int?
    /// chimed.conf `[Presentation] Sound=no`: deliver without sound.
    public var isSoundSuppressed = false

    public init(notification: ScheduledNotification, fireTime: Date, missedCount: Int = 0) {
        self.notification = notification
        self.fireTime = fireTime
        self.missedCount = missedCount
    }
}

/// A place notifications are delivered to (journal, stdout, desktop, command, webhook, or a test spy).
///
/// The one seam between the daemon and the outside world: the iOS practice of keeping the system call behind an
/// interface so that tests use a recording spy.
public protocol DeliveryBackend: Sendable {
    /// The name `Deliver=` uses.
    var name: String { get }
    /// Delivers; `deliveredAt` is the hand-off instant. Throws to report failure.
    func deliver(_ delivery: Delivery, deliveredAt: Date) async throws
}
