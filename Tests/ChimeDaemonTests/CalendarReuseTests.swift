import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore
@testable import ChimeDaemon

/// `CalendarReuse`: a load takes the `OnCalendar=` events the load before parsed, the very lists its notifications
/// hold, unless the zones read otherwise now; and keeps only those it asked for.
@Suite struct CalendarReuseTests {
    static let lines = [
        #"{"Id":"noon","Title":"Noon","OnCalendar":"*-*-* 12:00"}"#,
        #"{"Id":"zoned","Title":"Zoned","OnCalendar":"*-*-* 12:00 Test/Zone"}"#,
    ]
    static let newYear = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z

    /// A configuration directory whose one generator prints `lines`, read with its own `Test/Zone`.
    struct Setup {
        let directory: TemporaryDirectory

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-calendar-reuse")
            try directory.setTestZone("Asia/Tokyo")
        }

        /// - Parameter reusing: whether the generator's notifications of `previous` are lent too (`GeneratorReuse`).
        func load(
            _ lines: [String], after previous: LoadedSchedule? = nil, reusing: Bool = false
        ) throws -> LoadedSchedule {
            let body = lines.map { "echo '\($0)'" }.joined(separator: "\n")
            try directory.write("generators.d/g", "#!/bin/sh\n" + body + "\n", permissions: 0o755)
            let reuse = reusing ? previous.flatMap { GeneratorReuse($0) } : nil
            var loader = ScheduleLoader(
                sources: [GeneratorSource(directories: [directory.path], reuse: reuse)], zones: directory.testZones)
            loader.reuse.calendars = previous.flatMap { CalendarReuse($0) }
            return try loader.load(systemZone: .utc)
        }
    }

    static func entry(_ id: String, of schedule: LoadedSchedule) throws -> LoadedNotification {
        try #require(schedule.notifications.first { $0.notification.id == id })
    }

    static func sameEvents(_ a: LoadedNotification, _ b: LoadedNotification) -> Bool {
        a.notification.trigger.calendars.withUnsafeBufferPointer { $0.baseAddress }
            == b.notification.trigger.calendars.withUnsafeBufferPointer { $0.baseAddress }
    }

    static func nextNoon(_ entry: LoadedNotification) -> String? {
        entry.notification.trigger.calendars.first?.nextElapse(after: newYear, localZone: .utc).map {
            Timestamp.iso8601($0)
        }
    }

    /// Lines read again (their titles edited) are given the lists of then: their triggers are the same storage,
    /// told so from their bytes, and they load as without the load before.
    @Test func eventsReadAgainAreTheListsOfTheLoadBefore() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load(Self.lines)
        let edited = Self.lines.map { $0.replacingOccurrences(of: #""Title":""#, with: #""Title":"Edited "#) }
        let second = try setup.load(edited, after: first)
        let fresh = try setup.load(edited)
        #expect(second.notifications.map(\.notification) == fresh.notifications.map(\.notification))
        for id in ["noon", "zoned"] {
            let now = try Self.entry(id, of: second)
            let then = try Self.entry(id, of: first)
            #expect(Self.sameEvents(now, then))
            #expect(!Self.sameEvents(try Self.entry(id, of: fresh), then))
            let identical = withUnsafePointer(to: now.notification) { now in
                withUnsafePointer(to: then.notification) { ScheduledNotification.haveIdenticalTriggers(now, $0) }
            }
            #expect(identical)
        }
        #expect(Self.nextNoon(try Self.entry("zoned", of: second)) == "2027-01-01T03:00:00Z")
    }

    /// A load keeps the events it asked for only: those the load before had and this one did not are parsed anew
    /// by the next.
    @Test func eventsNotAskedForAreNotCarriedFurther() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load(Self.lines)
        let second = try setup.load([Self.lines[0]], after: first)
        let third = try setup.load(Self.lines, after: second)
        #expect(Self.sameEvents(try Self.entry("noon", of: third), try Self.entry("noon", of: first)))
        #expect(!Self.sameEvents(try Self.entry("zoned", of: third), try Self.entry("zoned", of: first)))
        #expect(third.notifications.map(\.notification) == first.notifications.map(\.notification))
    }

    /// A load that takes every notification as it was, asking for no events (the same output, or its lines in
    /// another order), keeps the events of the load before whole: a rebuild after it that reads the lines again
    /// still finds them.
    @Test func aLoadThatAskedForNoEventsKeepsThoseOfTheLoadBefore() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load(Self.lines)
        let reordered = try setup.load(Self.lines.reversed(), after: first, reusing: true)
        #expect(Self.sameEvents(try Self.entry("zoned", of: reordered), try Self.entry("zoned", of: first)))
        let edited = Self.lines.map { $0.replacingOccurrences(of: #""Title":""#, with: #""Title":"Edited "#) }
        let third = try setup.load(edited, after: reordered, reusing: true)
        #expect(third.notifications.map(\.notification.title) == ["Edited Noon", "Edited Zoned"])
        // Each line shares its earlier notification's events either way: the cache tells whether they were
        // parsed again.
        let cache = try #require(third.reusable.calendarCache)
        for (id, event) in [("noon", "*-*-* 12:00"), ("zoned", "*-*-* 12:00 Test/Zone")] {
            let kept = try #require(cache.calendars(for: CalendarCache.Key([event], zone: .utc)))
            let then = try Self.entry(id, of: first).notification.trigger.calendars
            #expect(kept.withUnsafeBufferPointer { $0.baseAddress } == then.withUnsafeBufferPointer { $0.baseAddress })
        }
    }

    /// tzdata changed the rules of a zone an event names: the events are parsed again and fire by the new rules.
    @Test func aZoneThatReadsOtherwiseMakesTheEventsBeParsedAgain() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        let first = try setup.load(Self.lines)
        try setup.directory.setTestZone("Europe/Lisbon")
        let second = try setup.load(Self.lines, after: first)
        let zoned = try Self.entry("zoned", of: second)
        #expect(!Self.sameEvents(zoned, try Self.entry("zoned", of: first)))
        #expect(!Self.sameEvents(try Self.entry("noon", of: second), try Self.entry("noon", of: first)))
        #expect(Self.nextNoon(zoned) == "2027-01-01T12:00:00Z")
        #expect(Self.nextNoon(try Self.entry("zoned", of: first)) == "2027-01-01T03:00:00Z")
    }
}
