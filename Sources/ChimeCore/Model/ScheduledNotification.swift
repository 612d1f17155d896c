import Foundation

/// One notification as configured: what to show and when (the `UILocalNotification` of the iOS API).
///
/// Built from a `NAME.notification` file (or a generator line, or a runtime request) by `NotificationLoader`, which
/// has validated every field; see chime.notification(5).
public struct ScheduledNotification: Sendable, Equatable {
    public enum Urgency: String, Sendable, CaseIterable {
        case low, normal, critical
    }

    /// `InterruptionLevel=`: how much the notification may interrupt, which focus (quiet hours, the desktop's
    /// do-not-disturb) decides by.
    public enum InterruptionLevel: String, Sendable, CaseIterable {
        /// Never interrupts: held, like `active`, while quiet, and shown quietly otherwise.
        case passive
        case active
        /// Passes quiet hours unless configured otherwise.
        case timeSensitive = "time-sensitive"
        /// Always passes.
        case critical

        /// The desktop urgency a notification of this level has when it sets no `Urgency=`.
        public var defaultUrgency: Urgency {
            switch self {
            case .passive: .low
            case .active, .timeSensitive: .normal
            case .critical: .critical
            }
        }
    }

    /// A button or choice offered with the notification: `Action=KEY:Label`.
    public struct Action: Sendable, Equatable {
        public var key: String
        public var label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// `Badge=`: set the badge to a number, change it by a number, or clear it.
    public enum BadgeChange: Sendable, Equatable, CustomStringConvertible {
        case set(Int)
        case add(Int)
        case clear

        /// Reads `N`, `+N`, `-N` or `clear` (N at most 1,000,000,000), as `Badge=` takes them; `nil` for anything
        /// else.
        public init?(parsing text: String) {
            if text == "clear" {
                self = .clear
                return
            }
            let digits = text.drop { $0 == "+" || $0 == "-" }
            guard text.count - digits.count <= 1, !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit),
                let value = Int(digits), value <= 1_000_000_000
            else { return nil }
            switch text.first {
            case "+": self = .add(value)
            case "-": self = .add(-value)
            default: self = .set(value)
            }
        }

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
    public var urgency: Urgency = .normal
    public var isEnabled = true
    public var trigger: Trigger

    /// The keys most notifications leave at their defaults, kept out of line: a schedule holds up to a million
    /// notifications, and these would be some hundred bytes of each.
    @usableFromInline struct Extras: Sendable {
        var icon: String?
        var category: String?
        var sound: String?
        var soundStyle = SoundStyle()
        var actions: [Action] = []
        var actionCommands: [String: [String]] = [:]
        var snooze = ScheduledNotification.defaultSnooze
        var badge: BadgeChange?
        @usableFromInline var backends: [String] = []
        var interruptionLevel = InterruptionLevel.active
        var thread: String?
        var repeats: [Duration] = []
        var dismissAcknowledges = true
        @usableFromInline var timing = DeliveryTiming()
    }

    /// `Extras` behind a reference, copied on write; `nil` while every one has its default.
    @usableFromInline final class ExtrasBox: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `extras`), so sharing it between threads is safe.
        @usableFromInline var value: Extras

        init(_ value: Extras) {
            self.value = value
        }
    }

    @usableFromInline var extrasBox: ExtrasBox?
    /// `info`, packed into one string (often short enough to need no allocation of its own): most notifications
    /// of a large generated schedule carry a pair or two, and as an array of pairs they cost some 200 bytes each.
    private var packedInfo = PackedPairs()

    /// Whether every rarely set key has its default, so that nothing is kept out of line.
    var extrasAreDefault: Bool { extrasBox == nil }

    /// What a notification without extras has. The getters read one field, through the box or from this, without
    /// copying the rest: the scheduler and the loads ask for them for every notification.
    @usableFromInline static let noExtras = Extras()

    private var extras: Extras {
        get { extrasBox?.value ?? Self.noExtras }
        set {
            if isKnownUniquelyReferenced(&extrasBox) {
                extrasBox!.value = newValue
            } else {
                extrasBox = ExtrasBox(newValue)
            }
        }
    }

    public var icon: String? {
        get { extrasBox?.value.icon }
        set { extras.icon = newValue }
    }
    public var category: String? {
        get { extrasBox?.value.category }
        set { extras.category = newValue }
    }
    /// A sound name, `default`, or an absolute file path.
    public var sound: String? {
        get { extrasBox?.value.sound }
        set { extras.sound = newValue }
    }
    /// How chime plays `sound` where it plays it itself, and whether it reads the text aloud: `Ring=`, `Volume=`,
    /// `FadeIn=`, `Speak=`, `Language=`.
    public var soundStyle: SoundStyle {
        get { extrasBox?.value.soundStyle ?? Self.noExtras.soundStyle }
        set { extras.soundStyle = newValue }
    }
    public var actions: [Action] {
        get { extrasBox?.value.actions ?? Self.noExtras.actions }
        set { extras.actions = newValue }
    }
    /// `ExecAction=KEY:COMMAND`: the argv to run when the action `KEY` is chosen.
    public var actionCommands: [String: [String]] {
        get { extrasBox?.value.actionCommands ?? Self.noExtras.actionCommands }
        set { extras.actionCommands = newValue }
    }
    /// What `SnoozeSec=` is unless set: ten minutes.
    public static let defaultSnooze: Duration = .seconds(600)
    /// How long `snooze` postpones the notification.
    public var snooze: Duration {
        get { extrasBox?.value.snooze ?? Self.noExtras.snooze }
        set { extras.snooze = newValue }
    }
    public var badge: BadgeChange? {
        get { extrasBox?.value.badge }
        set { extras.badge = newValue }
    }
    /// `Info=KEY=VALUE` pairs in file order: the userInfo of the iOS API.
    public var info: [(key: String, value: String)] {
        get { packedInfo.pairs }
        set { packedInfo = PackedPairs(newValue) }
    }

    /// Sets `info` from parts of other strings, without a string made of each.
    mutating func setInfo(_ pairs: [(key: Substring, value: Substring)]) {
        packedInfo = PackedPairs(pairs)
    }
    public var interruptionLevel: InterruptionLevel {
        get { extrasBox?.value.interruptionLevel ?? Self.noExtras.interruptionLevel }
        set { extras.interruptionLevel = newValue }
    }
    /// `Repeat=`: after each delivery, deliver again after the first span, then the second…, the last one over
    /// and over, until the user acknowledges it; empty for a notification delivered once per occurrence.
    public var repeats: [Duration] {
        get { extrasBox?.value.repeats ?? Self.noExtras.repeats }
        set { extras.repeats = newValue }
    }
    /// `DismissAcknowledges=`: whether the user closing the bubble acknowledges it (stops its repeats).
    public var dismissAcknowledges: Bool {
        get { extrasBox?.value.dismissAcknowledges ?? Self.noExtras.dismissAcknowledges }
        set { extras.dismissAcknowledges = newValue }
    }
    /// The delay before the repeat that follows repeat number `count` (0: after the delivery itself).
    public func repeatDelay(after count: Int) -> Duration? {
        repeats.isEmpty ? nil : repeats[min(count, repeats.count - 1)]
    }
    /// `RandomizedDelaySec=`, `FixedRandomDelay=` and `AccuracySec=` of `[Trigger]`: how long after each occurrence
    /// its delivery is due. They leave the occurrences themselves as they are, so they live here, not in `Trigger`.
    public var timing: DeliveryTiming {
        @inlinable get { extrasBox?.value.timing ?? Self.noExtras.timing }
        set { extras.timing = newValue }
    }
    /// `Thread=`: the group it belongs to (a course, a chat); the desktop shows one bubble per thread.
    public var thread: String? {
        get { extrasBox?.value.thread }
        set { extras.thread = newValue }
    }
    /// Backend names from `Deliver=`; empty means the daemon's default.
    public var backends: [String] {
        @inlinable get { extrasBox?.value.backends ?? Self.noExtras.backends }
        set { extras.backends = newValue }
    }

    public init(id: String, title: String, trigger: Trigger) {
        self.id = id
        self.title = title
        self.trigger = trigger
    }

    /// Becomes the notification at `earlier` when the two are equal, or else takes each of its parts that equals the
    /// earlier one's (the title, the body, the `Info=` pairs, the trigger, the rarely set keys as a whole), so that
    /// the two share its storage: a rebuild that reads a notification again, changed in one key, keeps one copy of the
    /// rest. The earlier one is read part by part where it lies: passed whole to a function it would be copied first,
    /// each of its parts retained and released, parts another thread made.
    public mutating func share(withNotificationAt earlier: UnsafePointer<ScheduledNotification>) {
        var isSame =
            id == earlier.pointee.id && urgency == earlier.pointee.urgency && isEnabled == earlier.pointee.isEnabled
        if title == earlier.pointee.title { title = earlier.pointee.title } else { isSame = false }
        if body == earlier.pointee.body { body = earlier.pointee.body } else { isSame = false }
        if packedInfo == earlier.pointee.packedInfo { packedInfo = earlier.pointee.packedInfo } else { isSame = false }
        let earlierTrigger = Self.trigger(of: earlier)
        if !withUnsafePointer(to: &trigger, { Trigger.areIdentical($0, earlierTrigger) }) {
            if trigger == earlierTrigger.pointee { trigger = earlierTrigger.pointee } else { isSame = false }
        }
        if extrasBox !== earlier.pointee.extrasBox {
            if let box = earlier.pointee.extrasBox, let mine = extrasBox, Self.extrasAreEqual(mine.value, box.value) {
                extrasBox = box
            } else if !Self.extrasAreEqual(extras, earlier.pointee.extras) {
                isSame = false
            }
        }
        if isSame { self = earlier.pointee }
    }

    /// Whether the two fire alike because their triggers hold the very same storage (`Trigger.areIdentical`).
    public static func haveIdenticalTriggers(
        _ a: UnsafePointer<ScheduledNotification>, _ b: UnsafePointer<ScheduledNotification>
    ) -> Bool {
        Trigger.areIdentical(trigger(of: a), trigger(of: b))
    }

    private static func trigger(of notification: UnsafePointer<ScheduledNotification>) -> UnsafePointer<Trigger> {
        (UnsafeRawPointer(notification) + triggerOffset).assumingMemoryBound(to: Trigger.self)
    }

    private static let triggerOffset = MemoryLayout<ScheduledNotification>.offset(of: \.trigger)!

    private static func extrasAreEqual(_ a: Extras, _ b: Extras) -> Bool {
        a.icon == b.icon && a.category == b.category && a.sound == b.sound && a.soundStyle == b.soundStyle
            && a.actions == b.actions
            && a.actionCommands == b.actionCommands && a.snooze == b.snooze && a.badge == b.badge
            && a.backends == b.backends && a.interruptionLevel == b.interruptionLevel && a.thread == b.thread
            && a.repeats == b.repeats && a.dismissAcknowledges == b.dismissAcknowledges && a.timing == b.timing
    }

    public static func == (a: ScheduledNotification, b: ScheduledNotification) -> Bool {
        a.id == b.id && a.title == b.title && a.body == b.body && a.icon == b.icon && a.category == b.category
            && a.sound == b.sound && a.soundStyle == b.soundStyle && a.urgency == b.urgency && a.actions == b.actions
            && a.actionCommands == b.actionCommands && a.snooze == b.snooze && a.badge == b.badge
            && a.packedInfo == b.packedInfo
            && a.backends == b.backends && a.isEnabled == b.isEnabled && a.trigger == b.trigger
            && a.interruptionLevel == b.interruptionLevel && a.thread == b.thread
            && a.repeats == b.repeats && a.dismissAcknowledges == b.dismissAcknowledges && a.timing == b.timing
    }
}

/// Key–value pairs in one string, each string written as its length in UTF-8 bytes, `:`, and its bytes (`4:kind5:bench`
/// for `kind=bench`), so that any text round-trips.
struct PackedPairs: Sendable, Equatable {
    private var text = ""

    init() {}

    init(_ pairs: [(key: String, value: String)]) {
        self.init(pairs.map { (key: $0.key[...], value: $0.value[...]) })
    }

    init(_ pairs: [(key: Substring, value: Substring)]) {
        // Written into the string's storage at once: appending six pieces a pair cost more than the rest of reading
        // a generated notification's Info= did.
        func digits(_ number: Int) -> Int { number < 10 ? 1 : 1 + digits(number / 10) }
        func size(_ part: Substring) -> Int { digits(part.utf8.count) + 1 + part.utf8.count }
        let length = pairs.reduce(0) { $0 + size($1.key) + size($1.value) }
        text = String(unsafeUninitializedCapacity: length) { buffer in
            var end = 0
            func write(_ part: Substring) {
                let count = part.utf8.count
                var remaining = count
                for place in stride(from: end + digits(count) - 1, through: end, by: -1) {
                    buffer[place] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                end += digits(count)
                buffer[end] = UInt8(ascii: ":")
                end += 1
                // Copied at once, not byte by byte.
                var part = part
                part.withUTF8 { bytes in
                    guard let source = bytes.baseAddress else { return }
                    (buffer.baseAddress! + end).initialize(from: source, count: count)
                }
                end += count
            }
            for (key, value) in pairs {
                write(key)
                write(value)
            }
            return end
        }
    }

    var pairs: [(key: String, value: String)] {
        var parts: [String] = []
        var utf8 = text.utf8[...]
        while let colon = utf8.firstIndex(of: UInt8(ascii: ":")) {
            let length = utf8[..<colon].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            let start = utf8.index(after: colon)
            let end = utf8.index(start, offsetBy: length)
            parts.append(String(decoding: utf8[start..<end], as: UTF8.self))
            utf8 = utf8[end...]
        }
        return stride(from: 0, to: parts.count - 1, by: 2).map { (key: parts[$0], value: parts[$0 + 1]) }
    }
}
