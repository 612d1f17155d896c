import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `RRule=`, `RDate=` and `ExDate=` in `[Trigger]`: read and checked by the loader, merged with the trigger's other
/// sources, with `Count=`, `Until=` and the first sighting as they apply to every source.
@Suite struct RecurrenceTriggerTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    let loader = NotificationLoader(systemZone: RecurrenceTriggerTests.berlin, zones: .system)

    func load(_ trigger: String) -> NotificationLoader.Result {
        let text = "[Notification]\nTitle=T\n[Trigger]\n" + trigger
        return loader.load(
            UnitFile(parsing: text, path: "/etc/chime/r.notification"), id: "r", path: "/etc/chime/r.notification")
    }

    /// The occurrences (ISO 8601, UTC) after `after`, for a notification first seen at `seen`.
    func occurrences(
        _ trigger: String, after: String = "2026-01-01T00:00:00Z", seen: String = "2025-12-01T00:00:00Z",
        limit: Int = 8
    ) throws -> [String] {
        let result = load(trigger)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        let notification = try #require(result.notification)
        let history = DeliveryHistory(firstSeen: try #require(TestDate.iso(seen)))
        return notification.trigger.occurrences(
            after: try #require(TestDate.iso(after)), history: history, systemZone: Self.berlin, limit: limit
        ).map { Timestamp.iso8601($0) }
    }

    @Test func theLastFridayOfEachMonthAcrossTheChangeToSummerTime() throws {
        #expect(
            try occurrences("RRule=FREQ=MONTHLY;BYDAY=-1FR\nFrom=2026-01-30 09:00", limit: 5) == [
                "2026-01-30T08:00:00Z", "2026-02-27T08:00:00Z", "2026-03-27T08:00:00Z", "2026-04-24T07:00:00Z",
                "2026-05-29T07:00:00Z",
            ])
    }

    /// RFC 5545 §3.3.5, not systemd: 02:30 on the day the clocks go forward is 03:30 summer time, not skipped.
    @Test func aWallTimeInTheGapTakesTheOffsetBeforeIt() throws {
        #expect(
            try occurrences(
                "RRule=FREQ=DAILY\nFrom=2026-03-28 02:30", after: "2026-03-28T00:00:00Z", limit: 3) == [
                    "2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z",
                ])
    }

    @Test func datesAddAndExclusionsTakeAwayFromEverySource() throws {
        let trigger = """
            OnCalendar=Thu,Fri 09:00
            RDate=20261226T100000,20261227
            ExDate=20261225
            ExDate=20261231T090000
            """
        #expect(
            try occurrences(trigger, after: "2026-12-23T00:00:00Z", limit: 4) == [
                "2026-12-24T08:00:00Z", "2026-12-26T09:00:00Z", "2026-12-26T23:00:00Z", "2027-01-01T08:00:00Z",
            ])
    }

    @Test func anExcludedDateTakesEveryInstanceOfItsDay() throws {
        #expect(
            try occurrences(
                "RRule=FREQ=HOURLY;INTERVAL=6\nFrom=2026-06-01 00:00\nExDate=20260602", after: "2026-06-01T12:00:00Z",
                limit: 3) == ["2026-06-01T16:00:00Z", "2026-06-02T22:00:00Z", "2026-06-03T04:00:00Z"])
    }

    @Test func countAndUntilOfTheTriggerApplyOnTopOfTheRulesOwn() throws {
        #expect(
            try occurrences("RRule=FREQ=WEEKLY;BYDAY=MO,WE\nFrom=2026-01-05 18:00\nCount=3")
                == ["2026-01-05T17:00:00Z", "2026-01-07T17:00:00Z", "2026-01-12T17:00:00Z"])
        #expect(
            try occurrences("RRule=FREQ=DAILY;COUNT=5\nFrom=2026-01-05 18:00\nExDate=20260106T180000")
                == [
                    "2026-01-05T17:00:00Z", "2026-01-07T17:00:00Z", "2026-01-08T17:00:00Z", "2026-01-09T17:00:00Z",
                ])
        #expect(
            try occurrences("RRule=FREQ=DAILY\nFrom=2026-01-05 18:00\nUntil=2026-01-07 18:00")
                == ["2026-01-05T17:00:00Z", "2026-01-06T17:00:00Z", "2026-01-07T17:00:00Z"])
    }

    /// Without `From=`, the rule starts when the notification was first seen, on the wall clock of its zone.
    @Test func withoutFromTheRuleStartsAtTheFirstSighting() throws {
        #expect(
            try occurrences(
                "RRule=FREQ=DAILY;BYHOUR=7,19;BYMINUTE=0;BYSECOND=0\nTimeZone=Asia/Tokyo",
                after: "2026-01-01T00:00:00Z",
                seen: "2026-01-01T00:00:00Z", limit: 3) == [
                    "2026-01-01T10:00:00Z", "2026-01-01T22:00:00Z", "2026-01-02T10:00:00Z",
                ])
    }

    @Test func aTimestampIsOneDate() throws {
        #expect(
            try occurrences("RDate=2026-12-24 18:00\nRDate=2026-12-31 18:00 UTC", after: "2026-12-01T00:00:00Z")
                == ["2026-12-24T17:00:00Z", "2026-12-31T18:00:00Z"])
    }

    /// `Offset=` as an iCalendar alarm: each occurrence moved once everything else is decided, so an alarm before
    /// the first instance at `From=` still comes.
    @Test func anOffsetMovesEachOccurrenceAfterTheWindowIsDecided() throws {
        #expect(
            try occurrences(
                "RRule=FREQ=DAILY;COUNT=3\nFrom=2026-05-04 09:00\nOffset=-PT15M", after: "2026-05-01T00:00:00Z",
                seen: "2026-05-01T00:00:00Z") == [
                    "2026-05-04T06:45:00Z", "2026-05-05T06:45:00Z", "2026-05-06T06:45:00Z",
                ])
        #expect(
            try occurrences("RDate=20261224T180000\nOffset=+1h 30min", after: "2026-12-01T00:00:00Z")
                == ["2026-12-24T18:30:00Z"])
    }

    /// Days of an RFC 5545 duration are nominal (the same wall time, days earlier, across the change to summer
    /// time); those of a time span are 24 hours each.
    @Test func nominalDaysKeepTheTimeOfDay() throws {
        let event = "RDate=20260330T090000\nTimeZone=Europe/Berlin\n"
        #expect(try occurrences(event + "Offset=-P2D", after: "2026-03-01T00:00:00Z") == ["2026-03-28T08:00:00Z"])
        #expect(try occurrences(event + "Offset=-2d", after: "2026-03-01T00:00:00Z") == ["2026-03-28T07:00:00Z"])
        #expect(try occurrences(event + "Offset=-P1W", after: "2026-03-01T00:00:00Z") == ["2026-03-23T08:00:00Z"])
    }

    @Test func theSummarySaysEverySource() throws {
        let notification = try #require(
            load(
                "RRule=FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29\nRDate=20270301\nExDate=20280229T120000\nFrom=2024-02-29 12:00"
            )
            .notification)
        #expect(
            notification.trigger.summary
                == "RRule=FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29 RDate=20270301 ExDate=20280229T120000 "
                + "From=2024-02-29T11:00:00Z")
        #expect(!notification.trigger.isOneShot)
    }

    @Test(arguments: [
        (
            "RRule=FREQ=DAILY;BYSETPOS=1",
            "/etc/chime/r.notification:4:7: Invalid RRule= 'FREQ=DAILY;BYSETPOS=1': BYSETPOS needs another BYxxx part."
        ),
        (
            "RRule=FREQ=FORTNIGHTLY",
            "/etc/chime/r.notification:4:7: Invalid RRule= 'FREQ=FORTNIGHTLY': FREQ=FORTNIGHTLY is not one of "
                + "SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY."
        ),
        (
            "RDate=20261224T180000,tomorrow",
            "/etc/chime/r.notification:4:7: Invalid RDate= '20261224T180000,tomorrow': give RFC 5545 dates or times "
                + "separated by commas (20261224T180000,20261231), or one timestamp ('2026-12-24 18:00')."
        ),
        (
            "RDate=tomorrow",
            "/etc/chime/r.notification:4:7: RDate= must be an absolute time; 'tomorrow' depends on when the file is "
                + "read."
        ),
        (
            "ExDate=20261225",
            "/etc/chime/r.notification:3:1: No trigger: set At=, OnCalendar=, Every=, RRule= or RDate= in [Trigger]."
        ),
    ])
    func mistakesAreNamed(trigger: String, message: String) {
        #expect(load(trigger).diagnostics.map(\.description) == [message])
    }

    @Test func aGeneratorGivesThemAsArrays() throws {
        let line =
            #"{"Id":"g","Title":"G","RRule":["FREQ=YEARLY"],"RDate":["20270101","20280101"],"#
            + #""From":"2026-05-01 10:00"}"#
        let results = GeneratorOutput(parsing: Array(line.utf8), path: "/gen").validated(by: loader)
        let notification = try #require(results.first?.result.notification)
        #expect(notification.trigger.recurrence?.rules.map(\.text) == ["FREQ=YEARLY"])
        #expect(notification.trigger.recurrence?.dates == [.date(20_819), .date(21_184)])
    }
}
