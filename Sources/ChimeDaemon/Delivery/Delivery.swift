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
    /// chimed.conf `[Presentation] Sound=no`, or chime plays the sound itself: backends that can make a sound must
    /// keep quiet (the desktop backend sends no sound hints and asks the server to suppress its own).
    public var isSoundSuppressed = false
    /// chime rings its sound (`Ring=`) while it is shown: a bubble stays until it is answered.
    public var isRinging = false
    /// Set when this is a re-delivery after the user chose `snooze`.
    public var isSnoozed = false
    /// Which repeat of `Repeat=` this is (1 for the first); 0 for a delivery that is not a repeat.
    public var repeatNumber = 0
    /// The backends that were done with this occurrence when the run that handed it over ended (killed, crashed):
    /// delivered again after a restart, it goes only to the others.
    public var finishedBackends: Set<String> = []
    /// Where its notification came from: an application's request is shown, counted and signalled as that
    /// application's.
    public var origin: DeliveryOrigin = .file
    /// The held deliveries a summary of quiet hours stands for (`QuietSummary`); empty for any other. What each
    /// of them does besides being shown (a badge, a signal to its application) is done when the summary goes out.
    public var summarizes: [Delivery] = []

    /// The application whose request this is (its desktop-file id), for the backends that show who it is from;
    /// `nil` for the instance's own notifications.
    public var appID: String? { origin.appID }

    public init(notification: ScheduledNotification, fireTime: Date, missedCount: Int = 0) {
        self.notification = notification
        self.fireTime = fireTime
        self.missedCount = missedCount
    }

    /// A delivery of the notification `entry` loaded, knowing where it came from.
    init(of entry: LoadedNotification, fireTime: Date, missedCount: Int = 0) {
        self.init(notification: entry.notification, fireTime: fireTime, missedCount: missedCount)
        origin = entry.deliveryOrigin
    }
}

/// A place notifications are delivered to (journal, stdout, desktop, command, webhook, apprise, or a test spy).
///
/// The one seam between the daemon and the outside world: the iOS practice of keeping the system call behind an
/// interface so that tests use a recording spy.
public protocol DeliveryBackend: Sendable {
    /// The name `Deliver=` uses.
    var name: String { get }
    /// The longest one delivery may take before the dispatcher gives up on it; `nil` for the dispatcher's default.
    var timeout: Duration? { get }
    /// The backend a delivery goes to instead when this one throws `BackendUnavailable`; `nil` for none.
    var fallback: String? { get }
    /// Delivers; `deliveredAt` is the hand-off instant. Throws to report failure.
    func deliver(_ delivery: Delivery, deliveredAt: Date) async throws
    /// One line about the backend's peer, logged at start-up and at each reload (a desktop server's name and
    /// capabilities); `nil` when there is nothing to say.
    func describe() async -> String?
}

extension DeliveryBackend {
    public var timeout: Duration? { nil }
    public var fallback: String? { nil }
    public func describe() async -> String? { nil }
}

/// Thrown by a backend that cannot reach its peer at all (no session bus, no notification server): the
/// dispatcher delivers to the backend's `fallback` instead, and logs the failure only when it is new, so that a
/// desktop-less machine gets one clear entry rather than one per delivery.
public struct BackendUnavailable: Error, Sendable, CustomStringConvertible {
    public var reason: String
    /// Whether this is the first failure since the backend last worked (or started).
    public var isNew: Bool

    public init(reason: String, isNew: Bool) {
        self.reason = reason
        self.isNew = isNew
    }

    public var description: String { reason }
}

/// What the daemon does when the user answers a notification: a desktop server's `ActionInvoked` and
/// `NotificationClosed`.
public protocol NotificationResponding: Sendable {
    /// The user chose the action `key` (`default` for a click on the bubble) on what `delivery` put up through
    /// `backend`.
    func actionInvoked(_ key: String, delivery: Delivery, backend: String)
    /// The bubble went away; `reason` as the Desktop Notifications specification numbers it: 1 expired,
    /// 2 dismissed by the user, 3 closed by `CloseNotification`, 4 undefined.
    func closed(_ delivery: Delivery, reason: UInt32, backend: String)
}

/// What every backend is built with.
public struct BackendContext: Sendable {
    public var log: any EventLog
    public var clock: any WallClock
    public var responder: any NotificationResponding
    /// chimed's environment (`DBUS_SESSION_BUS_ADDRESS`, `LANG`, …).
    public var environment: [String: String]
    /// Where an application's name is found, for a delivery of its request; `nil` names it by its id.
    public var applicationNames: (any ApplicationNames)?
    /// Where the desktop backend says whether its server plays sounds, for the sound stage.
    public var serverSounds: ServerSoundCapability?

    public init(
        log: any EventLog, clock: any WallClock, responder: any NotificationResponding,
        environment: [String: String], applicationNames: (any ApplicationNames)? = nil,
        serverSounds: ServerSoundCapability? = nil
    ) {
        self.log = log
        self.clock = clock
        self.responder = responder
        self.environment = environment
        self.applicationNames = applicationNames
        self.serverSounds = serverSounds
    }
}
