import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed --check` runs generators: the shipped examples, and a broken generator next to good files.
@Suite struct ChimedCheckGeneratorTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// What `make run` does first: `--config-dir=config`, relative, from the package root.
    @Test func theExampleConfigurationChecksCleanAndListsWhatTheGeneratorsMake() throws {
        let output = try ProcessRunner.run(
            chimed, ["--check", "--config-dir=config"], environment: ["TZ": "Europe/Berlin"],
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
        ] {
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
