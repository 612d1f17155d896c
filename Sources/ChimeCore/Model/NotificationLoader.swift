import Foundation

/// Turns parsed notification files into validated `ScheduledNotification`s, reporting every problem with its
/// file, line and column.
///
/// Unknown sections and keys are warnings (the file still loads); a value that breaks a rule is an error, and a
/// file with any error is not loaded.
public struct NotificationLoader: Sendable {
    /// The zone of times without a zone, unless a file sets `TimeZone=`.
    public var systemZone: ZoneRules
    public var zones: ZoneDatabase
    /// Shares the `OnCalendar=` events of notifications with the same ones, when set (see `CalendarCache`).
    public var calendarCache: CalendarCache?
    /// Shares the bodies of notifications with the same one, when set (see `SharedTexts`).
    public var sharedTexts: SharedTexts?
    /// The backends `Deliver=` may name, when known (chimed.conf's and the built-in ones): another name is a
    /// warning, since deliveries to it fail.
    public var knownBackends: [String]?
    /// Why this chimed cannot wake the system, when it cannot (it lacks CAP_WAKE_ALARM): `WakeSystem=yes` is then
    /// an error that says so and what to grant.
    public var wakeSystemRefusal: String?
    /// The shortest time apart one notification may fire (`Trigger.keyFiringMoreOftenThan`), and what sets it, for
    /// the error: a notification that could fire more often is not loaded.
    public var minimumInterval = InputLimits.defaultMinimumInterval
    public var minimumIntervalSetting = "MinimumInterval= in chimed.conf"
    /// The largest `COUNT` an `RRule=` may have, when bounded: what one rule may cost to walk.
    public var maximumRecurrenceCount: Int?

    public init(systemZone: ZoneRules, zones: ZoneDatabase, calendarCache: CalendarCache? = nil) {
        self.systemZone = systemZone
        self.zones = zones
        self.calendarCache = calendarCache
    }

    /// The outcome for one file: the notification (unless it had errors or is masked) and what was found.
    public struct Result: Sendable {
        public var id: String
        public var notification: ScheduledNotification?
        public var diagnostics: [UnitFileDiagnostic]
        public var isMasked = false

        public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

        /// Whether it gave a notification, told where it lies: comparing the optional with `nil` copies it whole.
        public var gaveNotification: Bool {
            if case .some = notification { true } else { false }
        }

        public init(
            id: String, notification: ScheduledNotification? = nil, diagnostics: [UnitFileDiagnostic] = [],
            isMasked: Bool = false
        ) {
            self.id = id
            self.notification = notification
            self.diagnostics = diagnostics
            self.isMasked = isMasked
        }
    }

    public static let knownKeys: [String: Set<String>] = Dictionary(grouping: NotificationKey.allCases, by: \.section)
        .mapValues { Set($0.map(\.rawValue)) }

    /// The keys whose value is a boolean: generators and the application interface may give them as one.
    public static let booleanKeys = Set(NotificationKey.allCases.filter(\.takesBoolean).map(\.rawValue))

    /// The keys that may be given more than once, each bounded by `InputLimits.maximumRepeats`.
    public static let repeatableKeys: [(section: String, keys: [String])] = ["Notification", "Trigger"].map {
        section in
        (section, NotificationKey.allCases.filter { $0.isRepeatable && $0.section == section }.map(\.rawValue))
    }

    /// Loads every file a search found.
    public func load(_ search: NotificationSearch) -> [Result] {
        search.files.map(load)
    }

    /// Loads one found file (its drop-ins already applied).
    public func load(_ file: NotificationFile) -> Result {
        switch file.content {
        case .masked:
            return Result(id: file.id, notification: nil, diagnostics: [], isMasked: true)
        case .loaded(let unit):
            return load(unit, id: file.id, path: file.path)
        }
    }

    /// Validates `unit` as the notification `id`.
    public func load(_ unit: UnitFile, id: String, path: String) -> Result {
        var result = load(NotificationAssignments(unit), id: id, path: path, diagnostics: unit.diagnostics)
        result.diagnostics = unit.explainingTrailingComments(result.diagnostics).sortedByPlace()
        return result
    }

    /// Validates `assignments` as the notification `id`, after `diagnostics` already found. The messages of a
    /// generator's line read straight from its bytes all have the line's location: a caller that gets any reads the
    /// line again in full to say where.
    func load(
        _ assignments: NotificationAssignments, id: String, path: String, diagnostics: [UnitFileDiagnostic] = []
    ) -> Result {
        var reader = NotificationReader(assignments, path: path, loader: self)
        return Self.load(assignments, id: id, path: path, diagnostics: diagnostics, with: &reader)
    }

    /// Validates `assignments` as the notification `id` with `reader`, made once for many with this loader: a
    /// reader made for each of a million generated lines copied the loader each time, and every thread retained
    /// and released the same zones and caches it holds.
    static func load(
        _ assignments: NotificationAssignments, id: String, path: String, diagnostics: [UnitFileDiagnostic] = [],
        with reader: inout NotificationReader
    ) -> Result {
        reader.start(assignments, path: path, diagnostics: diagnostics)
        let notification = reader.read(id: id)
        let hasErrors = reader.diagnostics.contains { $0.severity == .error }
        defer { reader.finish() }
        return Result(id: id, notification: hasErrors ? nil : notification, diagnostics: reader.diagnostics)
    }

    /// What is wrong with an id for which `isValidID(_:)` is false.
    static func invalidIDMessage(_ id: String) -> String {
        "Invalid notification name '\(id)': use letters, digits and '-_.@:'."
    }

    /// The most time spans `Repeat=` may list.
    public static let maximumRepeats = 32

    /// Whether `name` can name a thread: a name a person gives a group (`Linear Algebra`, `chat:alice`), shown in
    /// lists and hints, so one line of printable text of at most 255 bytes.
    public static func isValidThread(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether `id` can name a notification: letters, digits and `-_.@:`, at most 255 bytes, not starting with `.`.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 255, bytes.first != UInt8(ascii: ".") else { return false }
        // Byte by byte: asked once per notification, a million times for a large generator.
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "@"), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }
}
