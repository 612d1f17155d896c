import ChimeCore

/// One `VEVENT` of an iCalendar file, as far as its alarms need it: times as written (with the IANA zone their
/// `TZID` names), the recurrence, and the `VALARM`s.
public struct CalendarEvent: Sendable, Equatable {
    /// A time of the event: an RFC 5545 date, wall time or UTC instant, and the zone a wall time is read in (`nil`:
    /// floating, read in the system zone; a date is always floating).
    public struct Time: Sendable, Equatable {
        public var value: RecurrenceTime
        public var zone: String?

        public init(_ value: RecurrenceTime, zone: String? = nil) {
            self.value = value
            self.zone = zone
        }
    }

    public struct Alarm: Sendable, Equatable {
        public enum When: Sendable, Equatable {
            /// `TRIGGER:-PT15M`, before or after the start, or the end with `RELATED=END`.
            case relative(TriggerOffset, toEnd: Bool)
            /// `TRIGGER;VALUE=DATE-TIME:20261224T080000Z`: once, whatever the recurrence.
            case absolute(Int64)
        }

        public var when: When
        /// `AUDIO` alarms play a sound; `DISPLAY` ones do not.
        public var isAudio = false
        /// An `AUDIO` alarm's `ATTACH` when it is a local file (`file:///…`): the sound it plays.
        public var soundFile: String?
        /// `REPEAT` and `DURATION`: how many more times, how far apart.
        public var repeats = 0
        public var interval: TriggerOffset?

        public init(_ when: When) {
            self.when = when
        }
    }

    public var uid: String
    public var summary: String
    public var location: String
    public var description: String
    public var isCancelled = false
    public var start: Time
    /// `DTEND`, or `DTSTART` plus `DURATION`, as a move from the start; `nil` when the event has neither.
    public var length: TriggerOffset?
    public var rules: [String] = []
    public var dates: [Time] = []
    public var exclusions: [Time] = []
    /// `RECURRENCE-ID`: the instance of its series this event replaces.
    public var replaces: Time?
    public var alarms: [Alarm] = []

    public init(uid: String, summary: String, start: Time) {
        self.uid = uid
        self.summary = summary
        self.location = ""
        self.description = ""
        self.start = start
    }
}
