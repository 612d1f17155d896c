import ChimeCore
import ChimeSystemd

/// The arguments of one `org.freedesktop.Notifications.Notify` call (`susssasa{sv}i`), as the desktop backend
/// builds them from a delivery and what the server can do.
struct NotifyRequest: Sendable, Equatable {
    var appName: String
    /// The server id of the bubble this one replaces; 0 for a new bubble.
    var replacesID: UInt32
    var appIcon: String
    var summary: String
    var body: String
    /// Alternating action keys and labels.
    var actions: [String]
    var hints: [Hint]
    /// Milliseconds; -1 for the server's default.
    var expireTimeout: Int32

    struct Hint: Sendable, Equatable {
        var key: String
        var value: BusValue
    }

    /// The sound name `Sound=default` stands for: the freedesktop sound naming specification's sound for a new
    /// message, which sound themes provide.
    static let defaultSoundName = "message-new-instant"

    /// The label of the `ack` action a notification that repeats until acknowledged offers unless it names its own.
    static let acknowledgeLabel = "Acknowledge"

    /// The request for `delivery`.
    ///
    /// - `Body=` is escaped (`&`, `<`, `>`) only for a server with `body-markup`: such a server reads the body as
    ///   markup, any other shows it as it is.
    /// - `Action=` pairs are sent only to a server with `actions`.
    /// - `Sound=`: an absolute path is a `sound-file`, `default` the `sound-name` `message-new-instant`, anything else
    ///   a `sound-name`; a delivery whose sound is suppressed has no sound hint but `suppress-sound`.
    /// - `Thread=`: the bubble replaces the thread's (`replacesID`), its body ends with "and N more" for the
    ///   `earlierInThread` deliveries it stands for too, and a server that stacks by tag gets the thread as its
    ///   `x-dunst-stack-tag` and `x-canonical-private-synchronous`.
    /// - An application's request is sent as the application's: its `applicationName` (its id without one) and
    ///   `desktop-entry` = its id, so that the desktop shows its icon and applies its notification settings.
    init(
        _ delivery: Delivery, settings: DesktopSettings, capabilities: Set<String>, replacing replacesID: UInt32,
        earlierInThread: Int = 0, applicationName: String? = nil
    ) {
        let notification = delivery.notification
        appName = delivery.appID.map { applicationName ?? $0 } ?? settings.appName
        self.replacesID = replacesID
        appIcon = notification.icon ?? ""
        summary = notification.title
        var text = notification.body
        if earlierInThread > 0 { text += (text.isEmpty ? "" : "\n") + "and \(earlierInThread) more" }
        body = capabilities.contains("body-markup") ? Self.escapingMarkup(text) : text
        var offered = notification.actions
        if !notification.repeats.isEmpty && !offered.contains(where: { $0.key == "ack" }) {
            offered.append(.init(key: "ack", label: Self.acknowledgeLabel))
        }
        actions = capabilities.contains("actions") ? offered.flatMap { [$0.key, $0.label] } : []
        hints = [Hint(key: "urgency", value: .byte(Self.urgencyLevel(notification.urgency)))]
        if let category = notification.category { hints.append(Hint(key: "category", value: .string(category))) }
        hints.append(Hint(key: "desktop-entry", value: .string(delivery.appID ?? settings.desktopEntry)))
        if let thread = notification.thread {
            for key in ["x-dunst-stack-tag", "x-canonical-private-synchronous"] where capabilities.contains(key) {
                hints.append(Hint(key: key, value: .string(thread)))
            }
        }
        if delivery.isSoundSuppressed {
            hints.append(Hint(key: "suppress-sound", value: .boolean(true)))
        } else if let sound = notification.sound {
            if sound.hasPrefix("/") {
                hints.append(Hint(key: "sound-file", value: .string(sound)))
            } else {
                hints.append(
                    Hint(key: "sound-name", value: .string(sound == "default" ? Self.defaultSoundName : sound)))
            }
        }
        // A bubble stays while its sound rings: an alarm is answered on it, and its expiry would silence it.
        expireTimeout =
            delivery.isRinging ? 0 : settings.expire.map(Self.milliseconds) ?? -1
    }

    /// The specification's urgency levels: 0 low, 1 normal, 2 critical.
    static func urgencyLevel(_ urgency: ScheduledNotification.Urgency) -> UInt8 {
        switch urgency {
        case .low: return 0
        case .normal: return 1
        case .critical: return 2
        }
    }

    static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// `ExpireSec=` as the specification's expire timeout: 0 (never expires) for zero, else whole milliseconds,
    /// at least 1 and at most `Int32.max`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        return Int32(clamping: max(duration.wholeMilliseconds, 1))
    }

    /// Appends the arguments in the order of the signature `susssasa{sv}i`.
    func append(to writer: inout BusMessageWriter) throws {
        try writer.append(appName)
        try writer.append(.uint32(replacesID))
        try writer.append(appIcon)
        try writer.append(summary)
        try writer.append(body)
        try writer.append(strings: actions)
        try writer.append(dictionary: hints.map { ($0.key, $0.value) })
        try writer.append(.int32(expireTimeout))
    }
}
