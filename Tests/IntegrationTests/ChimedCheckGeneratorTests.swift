import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed --check` runs generators: the shipped examples, and a broken generator next to good files.
@Suite struct ChimedCheckGeneratorTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// What `make run` does first: `--config-dir=config`, relative, from the package root.
    @Test func theExampleConfigurationChecksCleanAndListsWhatTheGeneratorsMake() throws {
        let output = try ProcessRunner.run(
            chimed, ["--check", "--config-dir=config"],
            environment: ["TZ": "Europe/Berlin", "PATH": BinaryLocator.searchPath],
            directory: BinaryLocator.packageRoot.path)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.isEmpty)
        let lines = output.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix(" scheduled, 0 error(s), 0 warning(s).") })
        // The fire times depend on today (the exams lie in 2027); the triggers do not.
        for (id, trigger) in [
            ("exam-real-analysis", "At=2027-01-25T06:00:00Z"), ("exam-organic-chemistry", "At=2027-02-08T06:00:00Z"),
            ("exam-statistics-ii", "At=2027-06-14T05:00:00Z"), ("work-start", "OnCalendar=Mon..Fri *-*-* 08:30:00"),
            ("work-lunch", "OnCalendar=Mon..Fri *-*-* 12:30:00"),
            ("work-end", "OnCalendar=Mon..Thu *-*-* 17:30:00 OnCalendar=Fri *-*-* 15:00:00"),
            ("cal-ed8a47219a1626d5", "RRule=FREQ=YEARLY Offset=-PT15H From=2027-06-11T22:00:00Z"),
        ] {
            #expect(lines.contains { $0.hasPrefix("  \(id): ") && $0.hasSuffix(" — \(trigger)") }, "\(id)")
        }
    }

    /// The real `chime-calendar` as a generator, on real-shaped calendars: a Thunderbird export, a Google export
    /// and a vdir. What it cannot read is a warning; everything else loads and is scheduled.
    @Test func theCalendarGeneratorOnRealShapedCalendars() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-check-calendar")
        defer { directory.remove() }
        let calendars = BinaryLocator.packageRoot.appendingPathComponent("Tests/Fixtures/calendars").path
        let generator = try directory.write(
            "generators.d/calendar",
            "#!/bin/sh\nexec chime-calendar --default-alarm=-PT15M '\(calendars)'\n", permissions: 0o755)
        let output = try ProcessRunner.run(
            chimed, ["--check", "--config-dir=\(directory.path)"],
            environment: ["TZ": "Europe/Berlin", "PATH": BinaryLocator.searchPath])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(
            output.standardError
                == "\(generator): Generator wrote to stderr: \"chime-calendar: \(calendars)/google-export"
                + ".ics: event outlook-zone@example.com: TZID 'W. Europe Standard Time' names no time zone chime knows "
                + "(nor does its VTIMEZONE) / chime-calendar: \(calendars)/vdir/work/broken.ics: not an iCalendar file\".\n"
        )
        // As many as chime-calendar printed (a one-time alarm long past is left out, so that depends on the day):
        // each loads, without a problem. The recurring ones are always there.
        let printed = try ProcessRunner.run(
            BinaryLocator.path(of: "chime-calendar"), ["--default-alarm=-PT15M", calendars]
        ).standardOutput.split(separator: "\n").count
        #expect(printed >= 6)
        #expect(output.standardOutput.contains("\(printed) notification(s) loaded, "), "\(output.standardOutput)")
        #expect(output.standardOutput.contains(" scheduled, 0 error(s), 1 warning(s)."))
        for (id, trigger) in [
            (
                "cal-0d1f736b1f29ba9e",
                "RRule=FREQ=WEEKLY;INTERVAL=2;BYDAY=MO ExDate=20261221T100000 Offset=-PT5M "
                    + "From=2026-12-07T09:00:00Z TimeZone=Europe/Berlin"
            ),
            ("cal-fd13640542f1a0ab", "RRule=FREQ=YEARLY Offset=PT9H From=2027-03-02T23:00:00Z"),
        ] {
            let lines = output.standardOutput.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("  \(id): ") && $0.hasSuffix(" — \(trigger)") }, "\(id)")
        }
    }

    @Test func aBrokenGeneratorIsReportedAndTheRestIsListed() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-check")
        defer { directory.remove() }
        try directory.write("tick.notification", "[Notification]\nTitle=Tick\n[Trigger]\nOnCalendar=hourly\n")
        let failing = try directory.write(
            "generators.d/calendar", "#!/bin/sh\necho 'calendar.example.org: connection refused' >&2\nexit 3\n",
            permissions: 0o755)
        let garbage = try directory.write(
            "generators.d/week",
            "#!/bin/sh\necho '{\"Id\":\"monday\",\"Title\":\"Monday\",\"OnCalendar\":\"Mon 09:00\"}'\necho oops\n",
            permissions: 0o755)
        let open = try directory.write("generators.d/open", "#!/bin/sh\n", permissions: 0o757)
        let output = try ProcessRunner.run(
            chimed, ["--check", "--config-dir=\(directory.path)"], environment: ["TZ": "Europe/Berlin"])
        #expect(output.status == 1)
        // Sorted by file and line, as a reader goes through them.
        #expect(
            output.standardError.split(separator: "\n").map(String.init) == [
                "\(failing): Generator exited with status 3 (stderr: \"calendar.example.org: connection refused\").",
                "\(open): Generator is writable by others; refusing to run it (chmod o-w \(open)).",
                "\(garbage):2:1: Invalid JSON: expected a value, found 'o'.",
            ])
        #expect(output.standardOutput.contains("2 notification(s) loaded, 2 scheduled, 3 error(s), 0 warning(s)."))
        #expect(output.standardOutput.contains("  monday: "))
        #expect(output.standardOutput.contains("  tick: "))
    }
}
