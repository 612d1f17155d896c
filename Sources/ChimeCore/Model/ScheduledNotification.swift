import Foundation

/// One notification as configured: what to show and when (the `UILocalNotification` of the iOS API).
///
/// Built from a `NAME.notification` file (or a generator line, or a runtime request) by `NotificationLoader`, which
/// has validated every field; see chime.notification(5).
public struct ScheduledNotification: Sendable, Equatable {
    public enum Urgency: String, Sendable, CaseIterable {
        case low, normal, critical
    }

    /// A button or choice offered with the notification: `Action=KEY:Label`.
    public struct Action: Sendable, Equatable {
        public var key: String
        public var label: String
    }

    /// `Badge=`: set the badge to a number, change it by a number, or clear it.
    public enum BadgeChange: Sendable, Equatable, CustomStringConvertible {
        case set(Int)
        case add(Int)
        case clear

        public var description: String {
            switch self {
            case .set(let value): return String(value)
            case .add(let delta): return delta < 0 ? String(delta) : "+\(delta)"
            case .clear: return "clear"
            }
        }
    }

    /// The id: the file name without `.notification`.
    public var id: String
    public var title: String
    public var body: String = ""
    public var icon: String?
    public var category: String?
    /// A sound name, `default`, or an absolute file path.
    public var sound: String?
    public var urgency: Urgency = .normal
    public var actions: [Action] = []
    /// `ExecAction=KEY:COMMAND`: the argv to run when the action `KEY` is chosen.
    public var actionCommands: [String: [String]] = [:]
    /// How long `snooze` postpones the notification.
    public var snooze: Duration = .seconds(600)
    public var badge: BadgeChange?
    /// `Info=KEY=VALUE` pairs in file order: the userInfo of the iOS API.
    public var info: [(key: String, value: String)] = []
    /// Backend names from `Deliver=`; empty means the daemon's default.
    public var backends: [String] = []
    public var isEnabled = true
    public var trigger: Trigger

    public init(id: String, title: String, trigger: Trigger) {
        self.id = id
        self.title = title
        self.trigger = trigger
    }

    public static func == (a: ScheduledNotification, b: ScheduledNotification) -> Bool {
        a.id == b.id && a.title == b.title && a.body == b.body && a.icon == b.icon && a.category == b.category
            && a.sound == b.sound && a.urgency == b.urgency && a.actions == b.actions
            && a.actionCommands == b.actionCommands && a.snooze == b.snooze && a.badge == b.badge
            && a.info.map(\.key) == b.info.map(\.key) && a.info.map(\.value) == b.info.map(\.value)
            && a.backends == b.backends && a.isEnabled == b.isEnabled && a.trigger == b.trigger
    }
}

/// When a notification fires: the `[Trigger]` section.
///
/// The occurrences are the union of the `At=` instants, the elapses of the `OnCalendar=` events and the
/// `From + k·Every` instants, limited to the window from `From=` (or the first time the notification was seen)
/// to `Until=` (inclusive), of which `Count=` keeps the first N.
public struct Trigger: Sendable, Equatable {
    /// `At=`: one-shot instants.
    public var instants: [Date] = []
    /// `OnCalendar=`: calendar events, read in `timeZone` unless they name a zone.
    public var calendars: [CalendarSpec] = []
    /// `Every=`: the repeat interval, in microseconds.
    public var interval: Timespan?
    /// `From=`: the anchor of `Every=` and the start of the window.
    public var from: Date?
    /// `Count=`: how many occurrences there are at most.
    public var count: Int?
    /// `Until=`: no occurrence after this instant.
    public var until: Date?
    /// `TimeZone=`: the zone of wall-clock times without a zone of their own; `nil` means the system zone.
    public var timeZone: ZoneRules?
    /// `Persistent=`: deliver once, late, what was missed while the daemon was not running.
    public var isPersistent = false

    public init() {}

    public static func == (a: Trigger, b: Trigger) -> Bool {
        a.instants == b.instants && a.calendars == b.calendars && a.interval == b.interval && a.from == b.from
            && a.count == b.count && a.until == b.until && a.timeZone?.name == b.timeZone?.name
            && a.isPersistent == b.isPersistent
    }

    /// Whether the trigger fires at most once in total.
    public var isOneShot: Bool {
        calendars.isEmpty && interval == nil && instants.count <= 1
    }
}
