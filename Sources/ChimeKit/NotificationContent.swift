import ChimeSystemd

/// What a notification shows, as `UNNotificationContent` holds it: the keys of a notification file's
/// `[Notification]` section, each value written as in a file.
public struct NotificationContent: Sendable, Equatable {
    public var title: String
    public var body: String?
    /// `Badge=`: `N`, `+N`, `-N` or `clear`; this application's launcher badge.
    public var badge: String?
    public var sound: String?
    /// `Ring=`: how long the sound rings (`30s`), or `until-answered`; the alarm of a clock app.
    public var ring: String?
    /// `Volume=`: how loud chime plays the sound, `0%` to `100%`.
    public var volume: String?
    /// `FadeIn=`: how long the volume rises from silence (`20s`), or `yes`.
    public var fadeIn: String?
    /// `Speak=`: `yes` reads the title and body aloud.
    public var speak: String?
    /// `Language=`: the language they are read in (`de`, `en-GB`).
    public var language: String?
    public var icon: String?
    public var category: String?
    /// `Urgency=`: `low`, `normal` or `critical`.
    public var urgency: String?
    /// `InterruptionLevel=`: `passive`, `active`, `time-sensitive` or `critical`, as
    /// `UNNotificationInterruptionLevel`: how much it may interrupt the user's focus.
    public var interruptionLevel: String?
    /// `Thread=`, as `UNNotificationContent.threadIdentifier`: notifications of a thread share one bubble.
    public var threadIdentifier: String?
    /// `Repeat=`: time spans (`5min 10min`) after which it comes again, the last over and over, until acknowledged
    /// (`NotificationCenter.acknowledgeNotifications(withIdentifiers:)`).
    public var repeats: String?
    /// `Action=KEY:LABEL`, in order.
    public var actions: [(key: String, label: String)]
    /// `Info=KEY=VALUE`: what the application gets back with the user's answer (`userInfo`).
    public var userInfo: [(key: String, value: String)]

    public init(
        title: String, body: String? = nil, badge: String? = nil, sound: String? = nil, icon: String? = nil,
        category: String? = nil, urgency: String? = nil, actions: [(key: String, label: String)] = [],
        userInfo: [(key: String, value: String)] = [], interruptionLevel: String? = nil,
        threadIdentifier: String? = nil, repeats: String? = nil, ring: String? = nil, volume: String? = nil,
        fadeIn: String? = nil, speak: String? = nil, language: String? = nil
    ) {
        self.speak = speak
        self.language = language
        self.ring = ring
        self.volume = volume
        self.fadeIn = fadeIn
        self.title = title
        self.body = body
        self.badge = badge
        self.sound = sound
        self.icon = icon
        self.category = category
        self.urgency = urgency
        self.actions = actions
        self.userInfo = userInfo
        self.interruptionLevel = interruptionLevel
        self.threadIdentifier = threadIdentifier
        self.repeats = repeats
    }

    /// The `content` argument of `Add`.
    var entries: [(key: String, value: BusValue)] {
        var entries: [(key: String, value: BusValue)] = [("Title", .string(title))]
        for (key, value) in [
            ("Body", body), ("Badge", badge), ("Sound", sound), ("Icon", icon), ("Category", category),
            ("Urgency", urgency), ("InterruptionLevel", interruptionLevel), ("Thread", threadIdentifier),
            ("Repeat", repeats), ("Ring", ring), ("Volume", volume), ("FadeIn", fadeIn),
            ("Speak", speak), ("Language", language),
        ] {
            if let value { entries.append((key, .string(value))) }
        }
        if !actions.isEmpty { entries.append(("Action", .strings(actions.map { "\($0.key):\($0.label)" }))) }
        if !userInfo.isEmpty { entries.append(("Info", .strings(userInfo.map { "\($0.key)=\($0.value)" }))) }
        return entries
    }

    /// The content `GetPending` returns.
    init(entries: [(key: String, value: BusValue)]) {
        func text(_ key: String) -> String? {
            guard case .string(let value) = entries.first(where: { $0.key == key })?.value else { return nil }
            return value
        }
        func list(_ key: String, separator: Character) -> [(String, String)] {
            guard case .strings(let values) = entries.first(where: { $0.key == key })?.value else { return [] }
            return values.map { value in
                let parts = value.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        }
        self.init(
            title: text("Title") ?? "", body: text("Body"), badge: text("Badge"), sound: text("Sound"),
            icon: text("Icon"), category: text("Category"), urgency: text("Urgency"),
            actions: list("Action", separator: ":").map { (key: $0.0, label: $0.1) },
            userInfo: list("Info", separator: "=").map { (key: $0.0, value: $0.1) },
            interruptionLevel: text("InterruptionLevel"), threadIdentifier: text("Thread"), repeats: text("Repeat"),
            ring: text("Ring"), volume: text("Volume"), fadeIn: text("FadeIn"), speak: text("Speak"),
            language: text("Language"))
    }

    public static func == (a: NotificationContent, b: NotificationContent) -> Bool {
        a.title == b.title && a.body == b.body && a.badge == b.badge && a.sound == b.sound && a.icon == b.icon
            && a.category == b.category && a.urgency == b.urgency && a.interruptionLevel == b.interruptionLevel
            && a.threadIdentifier == b.threadIdentifier && a.repeats == b.repeats && a.ring == b.ring
            && a.volume == b.volume && a.fadeIn == b.fadeIn && a.speak == b.speak && a.language == b.language
            && a.actions.map(\.key) == b.actions.map(\.key) && a.actions.map(\.label) == b.actions.map(\.label)
            && a.userInfo.map(\.key) == b.userInfo.map(\.key) && a.userInfo.map(\.value) == b.userInfo.map(\.value)
    }
}
