import ChimePlatform
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

/// A request chimed handed to its backends: as the `Delivered` signal tells it, or as the desktop still shows it
/// (`deliveredNotifications()`, which carries the content too).
public struct DeliveredNotification: Sendable, Equatable {
    public var identifier: String
    /// The occurrence's scheduled time.
    public var fireDate: Date
    /// What is shown; `nil` from the `Delivered` signal, which does not carry it.
    public var content: NotificationContent?

    public init(identifier: String, fireDate: Date, content: NotificationContent? = nil) {
        self.identifier = identifier
        self.fireDate = fireDate
        self.content = content
    }
}

/// The user's answer to a delivered notification, as `UNNotificationResponse`: an action chosen on its bubble
/// (`ActionInvoked`), the bubble itself clicked, or the bubble closed (`Dismissed`).
public struct NotificationResponse: Sendable, Equatable {
    /// The action of a click on the bubble itself.
    public static let defaultActionIdentifier = "default"
    /// The bubble was closed without an action.
    public static let dismissActionIdentifier = "org.chime.dismissed"

    public var identifier: String
    public var actionIdentifier: String
    /// The request's `Info=` (empty for a dismissal).
    public var userInfo: [(key: String, value: String)]

    public init(identifier: String, actionIdentifier: String, userInfo: [(key: String, value: String)] = []) {
        self.identifier = identifier
        self.actionIdentifier = actionIdentifier
        self.userInfo = userInfo
    }

    public static func == (a: NotificationResponse, b: NotificationResponse) -> Bool {
        a.identifier == b.identifier && a.actionIdentifier == b.actionIdentifier
            && a.userInfo.map(\.key) == b.userInfo.map(\.key) && a.userInfo.map(\.value) == b.userInfo.map(\.value)
    }
}

/// What chimed may present, as `UNNotificationSettings` says it: the user's chimed.conf `[Presentation]`.
public struct NotificationSettings: Sendable, Equatable {
    public var alertsAllowed: Bool
    public var soundsAllowed: Bool
    public var badgesAllowed: Bool
    /// Where a request without `Deliver=` goes (`desktop`, `journal`...).
    public var backends: [String]
    /// The desktop's notification server, its version and capabilities ("dunst 1.9.0 (knopwob); capabilities:
    /// actions, body"), or why there is none; `nil` when chimed has no desktop backend.
    public var desktopServer: String?

    public init(
        alertsAllowed: Bool, soundsAllowed: Bool, badgesAllowed: Bool, backends: [String], desktopServer: String? = nil
    ) {
        self.alertsAllowed = alertsAllowed
        self.soundsAllowed = soundsAllowed
        self.badgesAllowed = badgesAllowed
        self.backends = backends
        self.desktopServer = desktopServer
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
