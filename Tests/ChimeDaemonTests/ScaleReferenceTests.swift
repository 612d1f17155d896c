import ChimeCore
import ChimeDaemonTestSupport
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// 100,000 notifications in the scheduler fire the same first 1,000 occurrences as a brute-force reference.
///
/// The schedule is built as `ScheduledNotification` values from a seeded mix of triggers (no files, no parser
/// other than `CalendarSpec`'s for the calendar events), installed into a `Scheduler` on a manual clock at
/// 2026-12-31 23:59:45 UTC (a Thursday; midnight and the new year fall inside the window), and the clock is advanced
/// from timer deadline to timer deadline until 1,000 occurrences have been handed off.
///
/// The reference does not use `Trigger.nextOccurrence`, `CalendarSpec.nextElapse` or `ZoneRules`: it works from the
/// numbers the mix was drawn from (a time of day, a zone name, an instant, an anchor and a step), lists every
/// occurrence of every notification within a horizon by plain arithmetic on epoch seconds (UTC calendar events,
/// `At=`, `Every=`, `Count=`, `Until=`) or by Foundation's `Calendar` and `TimeZone` (ICU's zone data, not the
/// tzfiles chime reads) for calendar events in a named zone, and sorts them. Occurrences due at the same instant
/// are handed off in the order of the schedule (the heap breaks ties by entry index), which is the order of the ids.
@Suite struct ScaleReferenceTests {
    static let notificationCount = 100_000
    static let deliveriesWanted = 1_000
    /// 2026-12-31 23:59:45 UTC.
    static let start: Int64 = 1_798_761_585
    /// The reference lists occurrences up to this long after the start; the test checks it was long enough.
    static let horizon: Int64 = 3600
    static let zoneNames = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]

    /// How a notification of the mix fires, in the numbers the reference works from.
    enum Shape {
        /// `OnCalendar=*-*-* HH:MM:SS` in the system zone (UTC), with an optional `Until=`.
        case daily(secondOfDay: Int64, until: Int64?)
        /// `OnCalendar=Mon..Fri HH:MM` with `TimeZone=`.
        case weekdays(hour: Int, minute: Int, zone: String)
        /// `At=` instants (epoch seconds), some before the start (skipped, never delivered).
        case instants([Int64])
        /// `Every=` with `From=`, optionally `Count=`.
        case every(step: Int64, from: Int64, count: Int?)
        /// `Every=` anchored at the first sighting (the start): first one step after it.
        case everyFromFirstSighting(step: Int64)
        /// `OnCalendar=*-*-* HH:MM:SS` and one `At=`, merged.
        case dailyAndInstant(secondOfDay: Int64, instant: Int64)
        /// `Enabled=no` on a daily calendar event: never fires.
        case disabled(secondOfDay: Int64)
    }

    struct Mix {
        var shapes: [Shape] = []
        var schedule = LoadedSchedule(systemZone: .utc)
    }

    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "n" + String(repeating: "0", count: 7 - digits.count) + digits
    }

    static func clock(_ secondOfDay: Int64) -> String {
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
    }

    /// The seeded mix: 62% daily in UTC (1 in 20 with `Until=` within a day of the start), 10% on weekdays in a
    /// named zone, 15% `At=` (1 to 3 instants over the coming year, 1 in 20 within ten minutes before to thirty after
    /// the start), 8% `Every=` with `From=` in the past week (1 in 4 with `Count=`), 2% `Every=` from the first
    /// sighting (1 in 100 with a step of 15 to 40 s), 2% a calendar event and an instant merged, 1% disabled.
    static func makeMix() throws -> Mix {
        var random = SeededRandomNumberGenerator(seed: 6)
        let zones = try zoneNames.map { try ZoneDatabase.system.rules(named: $0) }
        var dailySpecs: [Int64: [CalendarSpec]] = [:]
        var weekdaySpecs: [Int: [CalendarSpec]] = [:]
        func daily(_ second: Int64) throws -> [CalendarSpec] {
            if let cached = dailySpecs[second] { return cached }
            let specs = [try CalendarSpec("*-*-* \(clock(second))", localZone: .utc, zones: .system)]
            dailySpecs[second] = specs
            return specs
        }
        func weekdays(_ hour: Int, _ minute: Int) throws -> [CalendarSpec] {
            let key = hour * 60 + minute
            if let cached = weekdaySpecs[key] { return cached }
            let specs = [
                try CalendarSpec("Mon..Fri \(clock(Int64(key) * 60).prefix(5))", localZone: .utc, zones: .system)
            ]
            weekdaySpecs[key] = specs
            return specs
        }
        let steps: [Int64] = [3600, 5400, 7200, 21600, 43200, 86400, 604_800]
        var mix = Mix()
        mix.shapes.reserveCapacity(notificationCount)
        mix.schedule.notifications.reserveCapacity(notificationCount)
        for index in 0..<notificationCount {
            var trigger = Trigger()
            var enabled = true
            let shape: Shape
            let draw = random.below(100)
            switch draw {
            case 0..<62:
                let second = Int64(random.below(86400))
                trigger.calendars = try daily(second)
                var until: Int64?
                if random.below(20) == 0 {
                    until = start + Int64(random.number(in: -86400...86400))
                    trigger.until = Date(epochMicroseconds: until! * 1_000_000)
                }
                shape = .daily(secondOfDay: second, until: until)
            case 62..<72:
                let (hour, minute) = (random.below(24), random.below(60))
                let zone = random.below(zones.count)
                trigger.calendars = try weekdays(hour, minute)
                trigger.timeZone = zones[zone]
                shape = .weekdays(hour: hour, minute: minute, zone: zoneNames[zone])
            case 72..<87:
                let instants = (0..<random.number(in: 1...3)).map { _ in
                    random.below(20) == 0
                        ? start + Int64(random.number(in: -600...1800))
                        : start + Int64(random.number(in: 0...(365 * 86400)))
                }
                trigger.instants = instants.map { Date(epochMicroseconds: $0 * 1_000_000) }
                shape = .instants(instants)
            case 87..<95:
                let step = random.pick(steps)
                let from = start - Int64(random.number(in: 0...(7 * 86400)))
                let count = random.below(4) == 0 ? random.number(in: 1...200) : nil
                trigger.interval = Timespan(microseconds: UInt64(step) * 1_000_000)
                trigger.from = Date(epochMicroseconds: from * 1_000_000)
                trigger.count = count
                shape = .every(step: step, from: from, count: count)
            case 95..<97:
                // A few short steps, shared by several notifications: occurrences of different notifications at
                // the same instant within the window.
                let step = random.below(100) == 0 ? Int64(random.number(in: 15...40)) : random.pick(steps)
                trigger.interval = Timespan(microseconds: UInt64(step) * 1_000_000)
                shape = .everyFromFirstSighting(step: step)
            case 97..<99:
                let second = Int64(random.below(86400))
                let instant = start + Int64(random.number(in: 0...3600))
                trigger.calendars = try daily(second)
                trigger.instants = [Date(epochMicroseconds: instant * 1_000_000)]
                shape = .dailyAndInstant(secondOfDay: second, instant: instant)
            default:
                let second = Int64(random.below(86400))
                trigger.calendars = try daily(second)
                enabled = false
                shape = .disabled(secondOfDay: second)
            }
            let id = id(index)
            var notification = ScheduledNotification(id: id, title: id, trigger: trigger)
            notification.isEnabled = enabled
            mix.shapes.append(shape)
            mix.schedule.notifications.append(LoadedNotification(notification: notification, source: "scale"))
        }
        return mix
    }

    /// Every occurrence of every notification after `start` and up to `start + horizon`, as (epoch seconds, index),
    /// sorted; computed without chime's calendar or zone code.
    static func reference(_ shapes: [Shape]) -> [(second: Int64, index: Int)] {
        let end = start + horizon
        let firstDay = start - start % 86400
        var gregorian = Foundation.Calendar(identifier: .gregorian)
        var zonedCache: [String: [Int64]] = [:]
        /// The instants of HH:MM on Monday to Friday in `zone`, on the local dates around the window.
        func weekdayInstants(hour: Int, minute: Int, zone: String) -> [Int64] {
            let key = "\(zone) \(hour):\(minute)"
            if let cached = zonedCache[key] { return cached }
            gregorian.timeZone = TimeZone(identifier: zone)!
            var instants: [Int64] = []
            let startDate = Date(timeIntervalSince1970: TimeInterval(start))
            for dayOffset in -2...2 {
                let day = gregorian.date(byAdding: .day, value: dayOffset, to: startDate)!
                var components = gregorian.dateComponents([.year, .month, .day], from: day)
                components.hour = hour
                components.minute = minute
                components.second = 0
                let instant = gregorian.date(from: components)!
                // Foundation's weekday: 1 is Sunday, 7 Saturday.
                if (2...6).contains(gregorian.component(.weekday, from: instant)) {
                    instants.append(Int64(instant.timeIntervalSince1970))
                }
            }
            zonedCache[key] = instants
            return instants
        }
        var result: [(second: Int64, index: Int)] = []
        func add(_ second: Int64, _ index: Int) {
            if second > start && second <= end { result.append((second, index)) }
        }
        for (index, shape) in shapes.enumerated() {
            switch shape {
            case .daily(let secondOfDay, let until):
                var day = firstDay
                while day + secondOfDay <= end {
                    if until.map({ day + secondOfDay <= $0 }) ?? true { add(day + secondOfDay, index) }
                    day += 86400
                }
            case .weekdays(let hour, let minute, let zone):
                for instant in Set(weekdayInstants(hour: hour, minute: minute, zone: zone)) { add(instant, index) }
            case .instants(let instants):
                for instant in Set(instants) { add(instant, index) }
            case .every(let step, let from, let count):
                var k: Int64 = 0
                while from + k * step <= end && count.map({ k < Int64($0) }) ?? true {
                    add(from + k * step, index)
                    k += 1
                }
            case .everyFromFirstSighting(let step):
                var k: Int64 = 1
                while start + k * step <= end {
                    add(start + k * step, index)
                    k += 1
                }
            case .dailyAndInstant(let secondOfDay, let instant):
                var instants: Set<Int64> = [instant]
                var day = firstDay
                while day + secondOfDay <= end {
                    instants.insert(day + secondOfDay)
                    day += 86400
                }
                for instant in instants { add(instant, index) }
            case .disabled:
                break
            }
        }
        result.sort { ($0.second, $0.index) < ($1.second, $1.index) }
        return result
    }

    @Test(.timeLimit(.minutes(5)))
    func aHundredThousandNotificationsFireTheFirstThousandOccurrencesOfTheReference() throws {
        let mix = try Self.makeMix()
        let expected = Self.reference(mix.shapes)

        let clock = ManualClock(Date(epochMicroseconds: Self.start * 1_000_000))
        let timer = clock.makeTimer()
        let dispatcher = RecordingDispatcher(clock: clock)
        let scheduler = Scheduler(
            clock: clock, timer: timer, dispatcher: dispatcher, log: RecordingEventLog(), store: MemoryHistoryStore())
        scheduler.install(mix.schedule)
        #expect(scheduler.scheduledCount > Self.notificationCount / 2)

        // Deadline by deadline: the clock never passes an instant the scheduler did not ask for.
        while dispatcher.records.count < Self.deliveriesWanted, let deadline = timer.deadline {
            clock.advance(to: deadline)
        }
        let records = dispatcher.records
        try #require(records.count >= Self.deliveriesWanted)
        let last = records[records.count - 1].fireTime.epochMicroseconds
        // The reference must reach past the last instant delivered, or it could be missing occurrences.
        try #require(last < (Self.start + Self.horizon) * 1_000_000)

        // Everything up to and including the instant of the 1,000th occurrence, in order.
        let delivered = records.map { "\($0.id)@\($0.fireTime.epochMicroseconds)" }
        let reference = expected.prefix { $0.second * 1_000_000 <= last }.map {
            "\(Self.id($0.index))@\($0.second * 1_000_000)"
        }
        #expect(delivered.count == reference.count)
        if let mismatch = zip(delivered, reference).enumerated().first(where: { $1.0 != $1.1 })?.offset {
            Issue.record("occurrence \(mismatch): delivered \(delivered[mismatch]), reference \(reference[mismatch])")
        }
        #expect(records.allSatisfy { $0.handedOffAt == $0.fireTime && $0.missedCount == 0 })
        // And the timer is armed for the reference's next occurrence, not earlier or later.
        let next = expected.first { $0.second * 1_000_000 > last }
        #expect(timer.deadline?.epochMicroseconds == next.map { $0.second * 1_000_000 })
        // The comparison covers what it should: the window crosses midnight into the new year, with occurrences of
        // every kind of trigger that fires and many due at the same second.
        #expect(last > (Self.start + 15) * 1_000_000)
        let kinds = Set(reference.indices.map { Self.kind(mix.shapes[expected[$0].index]) })
        #expect(kinds == ["daily", "weekdays", "instants", "every", "everyFromFirstSighting", "dailyAndInstant"])
        #expect(Set(records.map(\.fireTime)).count < records.count / 3)
    }

    static func kind(_ shape: Shape) -> String {
        switch shape {
        case .daily: "daily"
        case .weekdays: "weekdays"
        case .instants: "instants"
        case .every: "every"
        case .everyFromFirstSighting: "everyFromFirstSighting"
        case .dailyAndInstant: "dailyAndInstant"
        case .disabled: "disabled"
        }
    }
}
