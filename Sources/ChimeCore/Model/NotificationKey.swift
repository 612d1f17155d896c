/// A key a notification may set (chime.notification(5)), in the section it belongs to: what files, generators'
/// lines, `chimectl add` and the application interface all give, with the names a file uses.
enum NotificationKey: String, CaseIterable, Sendable {
    case title = "Title"
    case body = "Body"
    case icon = "Icon"
    case category = "Category"
    case sound = "Sound"
    case urgency = "Urgency"
    case interruptionLevel = "InterruptionLevel"
    case action = "Action"
    case execAction = "ExecAction"
    case snoozeSec = "SnoozeSec"
    case badge = "Badge"
    case info = "Info"
    case deliver = "Deliver"
    case enabled = "Enabled"
    case thread = "Thread"
    case repeats = "Repeat"
    case dismissAcknowledges = "DismissAcknowledges"
    case at = "At"
    case onCalendar = "OnCalendar"
    case every = "Every"
    case from = "From"
    case count = "Count"
    case until = "Until"
    case timeZone = "TimeZone"
    case persistent = "Persistent"
    case rrule = "RRule"
    case rdate = "RDate"
    case exdate = "ExDate"
    case offset = "Offset"
    case randomizedDelaySec = "RandomizedDelaySec"
    case fixedRandomDelay = "FixedRandomDelay"
    case accuracySec = "AccuracySec"
    case wakeSystem = "WakeSystem"

    /// `Notification` or `Trigger`.
    var section: String { isTrigger ? "Trigger" : "Notification" }

    var isTrigger: Bool {
        switch self {
        case .at, .onCalendar, .every, .from, .count, .until, .timeZone, .persistent, .rrule, .rdate, .exdate, .offset,
            .randomizedDelaySec, .fixedRandomDelay, .accuracySec, .wakeSystem:
            true
        default:
            false
        }
    }

    /// Whether a file may assign it more than once (each bounded by `InputLimits.maximumRepeats`); generators give
    /// it as an array of strings too.
    var isRepeatable: Bool {
        switch self {
        case .action, .execAction, .info, .deliver, .at, .onCalendar, .rrule, .rdate, .exdate: true
        default: false
        }
    }

    /// Whether its value is a number, which generators and the application interface may give as one.
    var takesNumber: Bool { self == .count || self == .badge }

    /// Whether its value is a boolean, which generators and the application interface may give as one.
    var takesBoolean: Bool {
        switch self {
        case .persistent, .enabled, .fixedRandomDelay, .wakeSystem, .dismissAcknowledges: true
        default: false
        }
    }

    /// The key named `name`, whatever its section; one hash, where `init(rawValue:)` compares with each name in
    /// turn.
    static let named: [String: NotificationKey] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
