import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

/// `RRule=` against an independent implementation: `Fixtures/rrule-oracle.json`, rules × zones (DST, 30- and
/// 45-minute offsets) × starts (gaps, repeated hours, leap days) × bases, expanded by python-dateutil under RFC
/// 5545's DST rule (`Fixtures/make-rrule-oracle`); and the check of each part, naming the one that is wrong.
@Suite struct RecurrenceRuleTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let rule: String
        let tz: String
        let dtstart: String
        let after: String?
        let instants: [String]
        /// For a case of a whole set: `RDate=` and `ExDate=`, RFC 5545 times or dates.
        let rdates: [String]?
        let exdates: [String]?

        var testDescription: String {
            let set = rdates.map {
                " RDATE=\($0.joined(separator: ",")) EXDATE=\((exdates ?? []).joined(separator: ","))"
            }
            return "\(rule)\(set ?? "") [\(tz) from \(dtstart), after \(after ?? "the start")]"
        }
    }

    struct Fixture: Decodable {
        let cases: [Case]
    }

    struct MissingFixture: Error {}

    static let fixture: Result<[Case], any Error> = Result {
        guard let url = Bundle.module.url(forResource: "rrule-oracle", withExtension: "json", subdirectory: "Fixtures")
        else { throw MissingFixture() }
        return try JSONDecoder().decode(Fixture.self, from: try Data(contentsOf: url)).cases
    }

    static let cases: [Case] = (try? fixture.get()) ?? []

    /// `2026-03-08T02:30:00` as seconds of the wall clock.
    static func wallSeconds(_ text: String) -> Int64 {
        let parts = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        let days = CivilTime.days(year: parts[0], month: parts[1], day: parts[2])
        return Int64(days) * 86_400 + Int64(parts[3] * 3_600 + parts[4] * 60 + parts[5])
    }

    @Test func fixtureDecodesWholeAndIsVaried() throws {
        let cases = try Self.fixture.get()
        #expect(cases.count >= 400)
        #expect(Set(cases.map(\.tz)).isSuperset(of: ["Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu"]))
        #expect(cases.contains { $0.instants.isEmpty })
        #expect(cases.contains { $0.after != nil && !$0.instants.isEmpty })
        #expect(cases.filter { $0.rdates != nil }.count >= 80)
        #expect(cases.contains { $0.rule.contains("BYWEEKNO") && $0.rule.contains("WKST=SU") })
    }

    @Test(arguments: cases.filter { $0.rdates == nil })
    func agreesWithDateutil(_ oracle: Case) throws {
        let rule = try RecurrenceRule(oracle.rule)
        let zone = try ZoneDatabase.system.rules(named: oracle.tz)
        let first = try oracle.after.map { try #require(Timestamp.parseISO8601($0)).epochMicroseconds } ?? Int64.min
        let start = Self.wallSeconds(oracle.dtstart)
        // The fixture holds up to eight instants: fewer only where the rule has no more. Asked as the scheduler asks
        // (each search after the last instant), a cursor must give what searches from the start give.
        func instants(_ cursor: RecurrenceCursor?) -> [String] {
            var after = first
            var found: [String] = []
            while found.count < 8, let next = rule.nextInstant(after: after, start: start, zone: zone, cursor: cursor) {
                found.append(Timestamp.iso8601(Date(epochMicroseconds: next)))
                after = next
            }
            return found
        }
        let found = instants(nil)
        #expect(found == oracle.instants)
        let cursor = RecurrenceCursor()
        #expect(instants(cursor) == found)
        // Asked again from before where the cursor stands: it begins again.
        #expect(instants(cursor) == found)
    }

    /// Whole sets: the rule with `RDate=` and `ExDate=` in a notification file, `From=` its DTSTART, as chimed reads
    /// it.
    @Test(arguments: cases.filter { $0.rdates != nil })
    func setsAgreeWithDateutil(_ oracle: Case) throws {
        let text = """
            [Notification]
            Title=T
            [Trigger]
            RRule=\(oracle.rule)
            RDate=\((oracle.rdates ?? []).joined(separator: ","))
            ExDate=\((oracle.exdates ?? []).joined(separator: ","))
            From=\(oracle.dtstart.replacingOccurrences(of: "T", with: " "))
            TimeZone=\(oracle.tz)
            """
        let loaded = NotificationLoader(systemZone: .utc, zones: .system).load(
            UnitFile(parsing: text, path: "set.notification"), id: "set", path: "set.notification")
        let trigger = try #require(loaded.notification?.trigger, "\(loaded.diagnostics)")
        let after = try oracle.after.map { try #require(Timestamp.parseISO8601($0)) } ?? Date(timeIntervalSince1970: 0)
        let found = trigger.occurrences(
            after: after, history: DeliveryHistory(firstSeen: after), systemZone: .utc, limit: 8)
        #expect(found.map { Timestamp.iso8601($0) } == oracle.instants)
    }

    /// RFC 5545 §3.8.5.3's examples (DTSTART in America/New_York; the open-ended ones given a COUNT), with the
    /// dates the RFC lists, all at 09:00 on the New York wall clock.
    @Test(arguments: [
        (
            "FREQ=DAILY;COUNT=10", "1997-09-02",
            [
                "09-02", "09-03", "09-04", "09-05", "09-06", "09-07", "09-08", "09-09",
                "09-10", "09-11",
            ].map { "1997-\($0)" }
        ),
        (
            "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", "1997-08-05",
            ["1997-08-05", "1997-08-10", "1997-08-19", "1997-08-24"]
        ),
        (
            "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", "1997-08-05",
            ["1997-08-05", "1997-08-17", "1997-08-19", "1997-08-31"]
        ),
        (
            "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", "2007-01-15",
            ["2007-01-15", "2007-01-30", "2007-02-15", "2007-03-15", "2007-03-30"]
        ),
        (
            "FREQ=MONTHLY;COUNT=10;BYDAY=1FR", "1997-09-05",
            [
                "1997-09-05", "1997-10-03", "1997-11-07", "1997-12-05",
                "1998-01-02", "1998-02-06", "1998-03-06", "1998-04-03", "1998-05-01", "1998-06-05",
            ]
        ),
        (
            "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=5", "1998-02-13",
            ["1998-02-13", "1998-03-13", "1998-11-13", "1999-08-13", "2000-10-13"]
        ),
        ("FREQ=YEARLY;BYDAY=20MO;COUNT=3", "1997-05-19", ["1997-05-19", "1998-05-18", "1999-05-17"]),
        ("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=3", "1997-05-12", ["1997-05-12", "1998-05-11", "1999-05-17"]),
        (
            "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2;COUNT=7", "1997-09-29",
            [
                "1997-09-29", "1997-10-30",
                "1997-11-27", "1997-12-30", "1998-01-29", "1998-02-26", "1998-03-30",
            ]
        ),
        ("FREQ=MONTHLY;BYDAY=TU,WE,TH;BYSETPOS=3;COUNT=3", "1997-09-04", ["1997-09-04", "1997-10-07", "1997-11-06"]),
        (
            "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;COUNT=3", "1996-11-05",
            ["1996-11-05", "2000-11-07", "2004-11-02"]
        ),
        (
            "FREQ=YEARLY;BYMONTH=3;BYDAY=TH;COUNT=6", "1997-03-13",
            ["1997-03-13", "1997-03-20", "1997-03-27", "1998-03-05", "1998-03-12", "1998-03-19"]
        ),
        (
            "FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=6", "1997-09-28",
            ["1997-09-28", "1997-10-29", "1997-11-28", "1997-12-29", "1998-01-29", "1998-02-26"]
        ),
    ])
    func rfc5545Examples(rule: String, start: String, dates: [String]) throws {
        let zone = try ZoneDatabase.system.rules(named: "America/New_York")
        let instants = try RecurrenceRule(rule).instants(
            start: Self.wallSeconds(start + "T09:00:00"), zone: zone, limit: dates.count + 1)
        #expect(
            instants.map { Timestamp.format(Date(epochMicroseconds: $0), zone: zone) ?? "" }
                == dates.map { Timestamp.format(TestDate.timestamp("\($0) 09:00 America/New_York"), zone: zone) ?? "" })
    }

    /// Minutes apart, across a day: the wall times the RFC lists.
    @Test(arguments: [
        ("FREQ=MINUTELY;INTERVAL=15;COUNT=6", ["09:00", "09:15", "09:30", "09:45", "10:00", "10:15"]),
        ("FREQ=MINUTELY;INTERVAL=90;COUNT=4", ["09:00", "10:30", "12:00", "13:30"]),
    ])
    func rfc5545IntradayExamples(rule: String, times: [String]) throws {
        let zone = try ZoneDatabase.system.rules(named: "America/New_York")
        let instants = try RecurrenceRule(rule).instants(
            start: Self.wallSeconds("1997-09-02T09:00:00"), zone: zone, limit: times.count + 1)
        #expect(instants == times.map { TestDate.timestamp("1997-09-02 \($0) America/New_York").epochMicroseconds })
    }

    @Test(arguments: [
        ("FREQ=MONTHLY;BYSETPOS=1", "BYSETPOS needs another BYxxx part"),
        ("BYDAY=MO", "FREQ is required"),
        (
            "FREQ=FORTNIGHTLY",
            "FREQ=FORTNIGHTLY is not one of SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY"
        ),
        ("FREQ=DAILY;COUNT=3;UNTIL=20270101", "COUNT and UNTIL cannot both be given"),
        ("FREQ=DAILY;COUNT=0", "COUNT: '0' is not a whole number from 1 to 1000000"),
        ("FREQ=DAILY;INTERVAL=-2", "INTERVAL: '-2' is not a whole number from 1 to 10000"),
        ("FREQ=MONTHLY;BYMONTHDAY=32", "BYMONTHDAY: '32' is not a whole number from 1 to 31"),
        ("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY: '0' is not a whole number from 1 to 31"),
        ("FREQ=DAILY;BYHOUR=24", "BYHOUR: '24' is not a whole number from 0 to 23"),
        ("FREQ=WEEKLY;BYDAY=1MO", "BYDAY: '1MO' has a number, which only FREQ=MONTHLY or YEARLY allows"),
        ("FREQ=YEARLY;BYWEEKNO=3;BYDAY=1MO", "BYDAY: '1MO' has a number, which BYWEEKNO does not allow"),
        ("FREQ=MONTHLY;BYDAY=XX", "BYDAY: 'XX' is not a weekday such as MO, -1FR or 2TU"),
        ("FREQ=MONTHLY;BYWEEKNO=3", "BYWEEKNO is allowed with FREQ=YEARLY only"),
        ("FREQ=MONTHLY;BYYEARDAY=3", "BYYEARDAY is not allowed with FREQ=MONTHLY"),
        ("FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY is not allowed with FREQ=WEEKLY"),
        ("FREQ=DAILY;WKST=XY", "WKST=XY is not a weekday (MO, TU, WE, TH, FR, SA, SU)"),
        ("FREQ=DAILY;FREQ=WEEKLY", "FREQ is given twice"),
        ("FREQ=DAILY;BYEASTER=1", "unknown part 'BYEASTER'"),
        ("FREQ=DAILY;;COUNT=2", "'' is not NAME=VALUE"),
        (
            "FREQ=DAILY;UNTIL=2027-01-01",
            "UNTIL=2027-01-01 is not a date (20261231) or a date and time (20261231T235959Z, or without Z in the zone)"
        ),
    ])
    func aWrongPartIsNamed(rule: String, reason: String) {
        #expect(throws: RecurrenceRuleError(reason)) { try RecurrenceRule(rule) }
    }

    @Test func partsAreReadWhateverTheirCase() throws {
        let rule = try RecurrenceRule("freq=monthly;byday=-1fr;until=20271231T235959Z")
        #expect(rule.frequency == .monthly)
        #expect(rule.until == .instant(TestDate.timestamp("2027-12-31 23:59:59 UTC").epochMicroseconds))
        #expect(try RecurrenceRule("RRULE:FREQ=DAILY;COUNT=3").count == 3)
    }
}
