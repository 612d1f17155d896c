import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCalendar

/// `chime-calendar` on real-shaped calendars (Tests/Fixtures/calendars): a Thunderbird export, a Google export with a
/// VTIMEZONE, an override and a cancelled instance, and a vdir as vdirsyncer keeps it. What it prints is read as
/// chimed reads a generator's output, and the alarms fall when the calendar says.
@Suite struct CalendarGeneratorTests {
    static let calendars = BinaryLocator.packageRoot.appendingPathComponent("Tests/Fixtures/calendars").path
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    /// Tue 2026-12-01 12:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_796_126_400)

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(_ arguments: [String]) -> Run {
        var output = ""
        var errors = ""
        let status = CalendarGenerator.main(
            arguments, output: { output += $0 }, errors: { errors += $0 }, now: now)
        return Run(status: status, output: output, errors: errors)
    }

    /// Each notification's title, and its next `count` alarms after `now` (UTC), as chimed would load them.
    static func alarms(_ output: String, count: Int = 3) throws -> [String: [String]] {
        let loader = NotificationLoader(systemZone: berlin, zones: .system)
        var result: [String: [String]] = [:]
        for (line, loaded) in GeneratorOutput.validated(parsing: Array(output.utf8), path: "calendar", by: loader) {
            #expect(loaded.diagnostics.isEmpty, "line \(line): \(loaded.diagnostics.map(\.description))")
            let notification = try #require(loaded.notification)
            let next = notification.trigger.occurrences(
                after: now, history: DeliveryHistory(firstSeen: now), systemZone: berlin, limit: count)
            result[notification.title, default: []] += next.map { Timestamp.iso8601($0) }
        }
        return result
    }

    @Test func aGoogleExportWithAnOverrideACancelledInstanceAndZonesByLocation() throws {
        let run = Self.run([Self.calendars + "/google-export.ics"])
        #expect(run.status == 0)
        #expect(
            run.errors
                == "chime-calendar: \(Self.calendars)/google-export.ics: event outlook-zone@example.com: TZID 'W. "
                + "Europe Standard Time' names no time zone chime knows (nor does its VTIMEZONE)\n")
        let alarms = try Self.alarms(run.output, count: 4)
        // Mon, Wed, Fri 09:30 New York, ten minutes before: Friday the 11th moved to 14:00, the 25th cancelled.
        #expect(
            alarms["Stand-up"] == [
                "2026-12-07T14:20:00Z", "2026-12-09T14:20:00Z", "2026-12-14T14:20:00Z", "2026-12-16T14:20:00Z",
            ])
        #expect(alarms["Stand-up (moved)"] == ["2026-12-11T18:50:00Z"])
        // An absolute TRIGGER; the EMAIL alarm is no notification; a TZID known by its X-LIC-LOCATION.
        #expect(alarms["Quarterly review"] == ["2027-01-15T15:00:00Z"])
        #expect(alarms["Lunch with Dana"] == ["2027-02-01T16:30:00Z"])
        #expect(alarms["Long past"] == nil)
        #expect(alarms.count == 4)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.first?.contains(#""Body":"Join: https://meet.example.com/abc-defg-hij""#) == true)
        #expect(
            lines.first?.contains(#""Info":["calendar=google-export","uid=4k2m9q7r1s3t5v8w0x6y@google.com"]"#)
                == true)
    }

    @Test func aThunderbirdExportWithRepeatsAllDayEventsAndACancelledOne() throws {
        let run = Self.run([Self.calendars + "/thunderbird-export.ics"])
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        let alarms = try Self.alarms(run.output)
        // Wednesdays 19:30 Berlin, an hour before; 30 December left out.
        #expect(alarms["Choir rehearsal"] == ["2026-12-02T17:30:00Z", "2026-12-09T17:30:00Z", "2026-12-16T17:30:00Z"])
        // A day before (nominal), and half an hour before, repeated twice ten minutes apart (with a sound).
        #expect(
            alarms["Dentist"]?.sorted() == [
                "2027-01-11T07:30:00Z", "2027-01-12T07:00:00Z", "2027-01-12T07:10:00Z", "2027-01-12T07:20:00Z",
            ])
        #expect(run.output.components(separatedBy: #""Sound":"alarm-clock-elapsed""#).count == 4)
        // All day, floating: fifteen hours before the end, 09:00 of the day, on the system's clock.
        #expect(alarms["Mum's birthday"] == ["2027-03-03T08:00:00Z", "2028-03-03T08:00:00Z", "2029-03-03T08:00:00Z"])
        #expect(alarms["Cancelled concert"] == nil)
        #expect(
            run.output.contains(
                #""Body":"St. Mary's, hall 2 — Bring the Brahms scores. Tea afterwards.""#))
    }

    @Test func aVdirWithCountRdateExdateAnOverrideAndTheDefaultAlarm() throws {
        let without = Self.run([Self.calendars + "/vdir"])
        #expect(without.errors == "chime-calendar: \(Self.calendars)/vdir/work/broken.ics: not an iCalendar file\n")
        #expect(try Self.alarms(without.output)["Book club"] == nil)

        let run = Self.run(["--default-alarm=-PT15M", Self.calendars + "/vdir"])
        let alarms = try Self.alarms(run.output, count: 8)
        // The first Thursday of each month at 19:00, a default alarm a quarter of an hour before.
        #expect(alarms["Book club"]?.prefix(2) == ["2027-01-07T17:45:00Z", "2027-02-04T17:45:00Z"])
        // Tuesdays and Thursdays 07:00 from 1 December, twenty of them, Christmas Eve off, Sunday the 27th on.
        #expect(
            alarms["Yoga"] == [
                "2026-12-03T05:40:00Z", "2026-12-08T05:40:00Z", "2026-12-10T05:40:00Z", "2026-12-15T05:40:00Z",
                "2026-12-17T05:40:00Z", "2026-12-22T05:40:00Z", "2026-12-27T07:40:00Z", "2026-12-29T05:40:00Z",
            ])
        #expect(alarms["Sprint planning"]?.prefix(2) == ["2026-12-07T08:55:00Z", "2027-01-04T08:55:00Z"])
        #expect(alarms["Sprint planning (long)"] == ["2026-12-21T07:55:00Z"])
        #expect(run.output.contains(#""Info":["calendar=work","uid=planning-2026@work.example"]"#))
    }

    /// The id of each alarm follows from the calendar, not from the run: the same output twice.
    @Test func anAudioAlarmRingsItsAttachedFileOrTheThemesAlarm() throws {
        let directory = try TemporaryDirectory(prefix: "calendar-audio")
        defer { directory.remove() }
        func event(_ uid: String, _ attach: String?) -> String {
            "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20270105T090000Z\r\nSUMMARY:\(uid)\r\n"
                + "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT10M\r\n" + (attach.map { "\($0)\r\n" } ?? "")
                + "END:VALARM\r\nEND:VEVENT\r\n"
        }
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            + event("file", "ATTACH;FMTTYPE=audio/ogg:file:///usr/share/sounds/my%20bell.oga")
            + event("localhost", "ATTACH:file://localhost/home/dana/gong.wav")
            + event("web", "ATTACH:https://example.org/bell.oga")
            + event("inline", "ATTACH;ENCODING=BASE64;VALUE=BINARY:T2dnUw==")
            + event("none", nil) + "END:VCALENDAR\r\n"
        let path = try directory.write("audio.ics", text)
        let run = Self.run([path])
        #expect(run.status == 0 && run.errors.isEmpty, "\(run.errors)")
        var sounds: [String: String] = [:]
        for line in run.output.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            sounds[object["Title"] as? String ?? ""] = object["Sound"] as? String
        }
        #expect(
            sounds == [
                "file": "/usr/share/sounds/my bell.oga", "localhost": "/home/dana/gong.wav",
                "web": "alarm-clock-elapsed", "inline": "alarm-clock-elapsed", "none": "alarm-clock-elapsed",
            ])
    }

    @Test func idsAreStableAndOnePerAlarm() {
        let first = Self.run(["--default-alarm=-PT15M", Self.calendars])
        let second = Self.run(["--default-alarm=-PT15M", Self.calendars])
        #expect(first.output == second.output)
        let ids = first.output.split(separator: "\n").compactMap { $0.firstMatch(of: /"Id":"(cal-[0-9a-f]{16})"/)?.1 }
        #expect(ids.count == 14)
        #expect(Set(ids).count == ids.count)
    }

    @Test(arguments: [
        (
            ["--default-alarm=soon", "x.ics"],
            "chime-calendar: --default-alarm 'soon' is not a duration ('-PT15M', '-15min')\n"
        ),
        ([String](), "chime-calendar: give at least one .ics file or directory\n"),
        (["--colour"], "chime-calendar: unknown option '--colour'\n"),
    ])
    func usageErrors(arguments: [String], message: String) {
        let run = Self.run(arguments)
        #expect(run.status == 64)
        #expect(run.errors.hasPrefix(message), "\(run.errors)")
    }

    @Test func durationsAreWrittenAsRFC5545Has() {
        func written(_ days: Int, _ seconds: Int64) -> String {
            AlarmNotifications.duration(TriggerOffset(days: days, microseconds: seconds * 1_000_000, description: ""))
        }
        #expect(written(0, -900) == "-PT15M")
        #expect(written(-1, 0) == "-P1D")
        #expect(written(-1, -5_400) == "-P1DT1H30M")
        #expect(written(1, -54_000) == "PT9H")
        #expect(written(0, 0) == "PT0S")
        #expect(written(0, 3_661) == "PT1H1M1S")
    }
}
