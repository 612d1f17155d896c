import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The generators shipped in `config/generators.d/` produce exactly these notifications.
@Suite struct ExampleGeneratorTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")
    static let config = BinaryLocator.packageRoot.appendingPathComponent("config").path

    /// One line per notification: id, line, title, body, trigger, sound, actions, info.
    static func describe(_ entry: LoadedNotification) -> String {
        let notification = entry.notification
        let source = URL(fileURLWithPath: entry.source).lastPathComponent
        return [
            "\(notification.id) (\(source):\(entry.line ?? 0))", notification.title, notification.body,
            notification.trigger.summary, notification.sound ?? "-",
            notification.actions.map { "\($0.key):\($0.label)" }.joined(separator: " "),
            notification.info.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
        ].joined(separator: " | ")
    }

    @Test func theCalendarTheExamsAndTheWorkWeek() throws {
        let source = GeneratorSource(directories: [Self.config], environment: ["PATH": BinaryLocator.searchPath])
        let schedule = try ScheduleLoader(sources: [source]).load(systemZone: Self.berlin)
        #expect(schedule.problems.isEmpty, "\(schedule.problems)")
        #expect(
            schedule.notifications.map(Self.describe) == [
                "cal-ed8a47219a1626d5 (calendar:1) | Wedding anniversary | Book a table. | RRule=FREQ=YEARLY "
                    + "Offset=-PT15H From=2027-06-11T22:00:00Z | - |  | calendar=family uid=anniversary@family.example",
                "cal-1ae4d09945600593 (calendar:2) | Put the bins out | Paper and glass this week. | "
                    + "RRule=FREQ=WEEKLY;INTERVAL=2;BYDAY=TU ExDate=20270330T200000 From=2027-01-05T19:00:00Z "
                    + "TimeZone=Europe/Berlin | - |  | calendar=family uid=bins-2027@family.example",
                "exam-real-analysis (exams:1) | Exam: Real Analysis | Starts today in Room 4B | "
                    + "At=2027-01-25T06:00:00Z | default | snooze:Snooze | kind=exam location=Room 4B",
                "exam-organic-chemistry (exams:2) | Exam: Organic Chemistry | Starts today in Hall C, ground floor | "
                    + "At=2027-02-08T06:00:00Z | default | snooze:Snooze | kind=exam location=Hall C, ground floor",
                "exam-statistics-ii (exams:3) | Exam: Statistics II | Starts today in Lecture Theatre 1 | "
                    + "At=2027-06-14T05:00:00Z | default | snooze:Snooze | kind=exam location=Lecture Theatre 1",
                "work-start (work-week:1) | Work starts | Check the team board before the stand-up. | "
                    + "OnCalendar=Mon..Fri *-*-* 08:30:00 | - |  | kind=work",
                "work-lunch (work-week:2) | Lunch break | Step away from the screen for half an hour. | "
                    + "OnCalendar=Mon..Fri *-*-* 12:30:00 | - |  | kind=work",
                "work-end (work-week:3) | Time to wrap up | Write down where you stopped, for tomorrow. | "
                    + "OnCalendar=Mon..Thu *-*-* 17:30:00 OnCalendar=Fri *-*-* 15:00:00 | - |  | kind=work",
            ])
    }

    /// The exams generator reads its table from `CHIME_CONFIG_DIR`: a row it cannot use is a warning, and the
    /// date is checked by chime like any `At=`.
    @Test func theExamsGeneratorSkipsRowsItCannotUseAndSaysWhy() throws {
        let directory = try TemporaryDirectory(prefix: "chime-exams")
        defer { directory.remove() }
        let script = try String(contentsOfFile: Self.config + "/generators.d/exams", encoding: .utf8)
        let path = try directory.write("generators.d/exams", script, permissions: 0o755)
        let rows = [
            "Name, Date ,Location\r", #""Thermodynamics ""A""",2027-13-01,"Hall C, ground floor"\#r"#,
            "Only two,2027-01-01", "Chemistry,1 Feb 2027,Lab", "", "Ethics,2027-03-01,", "",
        ]
        try directory.write("exams.csv", rows.joined(separator: "\n"))
        let schedule = try ScheduleLoader(sources: [GeneratorSource(directories: [directory.path])])
            .load(systemZone: Self.berlin)
        #expect(
            schedule.notifications.map(Self.describe) == [
                "exam-ethics (exams:2) | Exam: Ethics | Starts today | At=2027-03-01T06:00:00Z | default | "
                    + "snooze:Snooze | kind=exam"
            ])
        #expect(
            schedule.problems.map(\.description) == [
                "\(path):1:120: Invalid At= '2027-13-01 07:00': column 6: not a timestamp systemd understands.",
                "\(path): Generator wrote to stderr: \"exams.csv:3: expected 3 fields (name,date,location), found 2; "
                    + "skipping this row / exams.csv:4: date \"1 Feb 2027\" is not YYYY-MM-DD; skipping this row\".",
            ])
    }
}
