/// A key a notification may set (chime.notification(5)), in the section it belongs to: what files, generators'
/// lines, `chimectl add` and the application interface all give, with the names a file uses.
enum NotificationKey: String, CaseIterable, Sendable {
    case title = "Title"
    case body = "Body"
    case icon = "Icon"
    case category = "Category"
    case sound = "Sound"
    case ring = "Ring"
    case volume = "Volume"
    case fadeIn = "FadeIn"
    case speak = "Speak"
    case language = "Language"
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
    var takesNumber: Bool { self == .count || self == .badge || self == .volume }

    /// Whether its value is a boolean, which generators and the application interface may give as one.
    var takesBoolean: Bool {
        switch self {
        case .persistent, .enabled, .fixedRandomDelay, .wakeSystem, .dismissAcknowledges, .speak: true
        default: false
        }
    }

    /// The key named `name`, whatever its section (`named(utf8:)`).
    static func named(_ name: String) -> NotificationKey? {
        var name = name
        return name.withUTF8 { named(utf8: $0) }
    }

    /// The key named by the bytes `name`, whatever its section: compared with the few names of its length, where
    /// `init(rawValue:)` compares with each name in turn, and without a string made of the bytes and hashed (a
    /// generator's line names five or six keys, and a load may read a million lines).
    static func named(utf8 name: UnsafeBufferPointer<UInt8>) -> NotificationKey? {
        let table = byLength
        let start = name.count * slotsPerLength
        guard start + slotsPerLength <= table.count else { return nil }
        for slot in start..<start + slotsPerLength {
            guard let key = table[slot] else { return nil }
            if key.rawValue.utf8.elementsEqual(name) { return key }
        }
        return nil
    }

    /// The keys by the length of their names, `slotsPerLength` slots for each length, in memory that lives as long
    /// as the process: read-only once made, and read without reference counting (an array shared by the threads of
    /// a load is retained by each at every look).
    nonisolated(unsafe) private static let byLength: UnsafeBufferPointer<NotificationKey?> = {
        let longest = allCases.map(\.rawValue.utf8.count).max()!
        let table = UnsafeMutableBufferPointer<NotificationKey?>.allocate(capacity: (longest + 1) * slotsPerLength)
        table.initialize(repeating: nil)
        var used = [Int](repeating: 0, count: longest + 1)
        for key in allCases {
            let length = key.rawValue.utf8.count
            precondition(used[length] < slotsPerLength, "more names of \(length) letters than slots for them")
            table[length * slotsPerLength + used[length]] = key
            used[length] += 1
        }
        return UnsafeBufferPointer(table)
    }()

    /// The most names of one length: nine have five letters.
    private static let slotsPerLength = 9
}
