import Foundation

/// A notification an application schedules: an identifier of its own choosing (adding one with the same
/// identifier replaces it), what it shows and when it fires, as `UNNotificationRequest`.
public struct NotificationRequest: Sendable, Equatable {
    public var identifier: String
    public var content: NotificationContent
    public var trigger: NotificationTrigger

    public init(identifier: String, content: NotificationContent, trigger: NotificationTrigger) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// A request chimed holds for the application, with when it fires next.
public struct PendingNotificationRequest: Sendable, Equatable {
    public var request: NotificationRequest
    public var nextFireDate: Date

    public init(request: NotificationRequest, nextFireDate: Date) {
        self.request = request
        self.nextFireDate = nextFireDate
    }
}

/// A request chimed handed to its backends (the `Delivered` signal).
public struct DeliveredNotification: Sendable, Equatable {
    public var identifier: String
    /// The occurrence's scheduled time.
    public var fireDate: Date

    public init(identifier: String, fireDate: Date) {
        self.identifier = identifier
        self.fireDate = fireDate
    }
}

/// What chimed may present, as `UNNotificationSettings` says it: the user's chimed.conf `[Presentation]`.
public struct NotificationSettings: Sendable, Equatable {
    public var alertsAllowed: Bool
    public var soundsAllowed: Bool
    public var badgesAllowed: Bool
    /// Where a request without `Deliver=` goes (`desktop`, `journal`...).
    public var backends: [String]

    public init(alertsAllowed: Bool, soundsAllowed: Bool, badgesAllowed: Bool, backends: [String]) {
        self.alertsAllowed = alertsAllowed
        self.soundsAllowed = soundsAllowed
        self.badgesAllowed = badgesAllowed
        self.backends = backends
    }
}

/// Why chimed refused a call, with its message.
public enum NotificationCenterError: Error, Equatable, CustomStringConvertible {
    /// The request is not valid: the message is the one a notification file would get.
    case invalidArgument(String)
    /// A quota or a size limit (`MaxRequestsPerApp=`, 64 KiB).
    case limitExceeded(String)
    case accessDenied(String)
    /// chimed could not be reached or failed otherwise.
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalidArgument(let message), .limitExceeded(let message), .accessDenied(let message),
            .unavailable(let message):
            return message
        }
    }
}
