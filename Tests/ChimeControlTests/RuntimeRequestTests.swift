import ChimeCore
import ChimeDaemon
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeControl

/// `chimectl add`, `cancel`, `disable`, `enable` and `fire` in-process, on an instance in a temporary directory
/// whose chimed is not running: the files they write and remove, their output, their refusals.
@Suite struct RuntimeRequestTests {
    /// Mon 2026-11-30 09:00:00 UTC, 10:00 in Berlin.
    static let now = ChimectlTests.now

    /// An instance: configuration in `etc` (and `usr`, searched after it), state in `state`, runtime in `run`.
    struct Instance {
        let directory: TemporaryDirectory

        init() throws {
            directory = try TemporaryDirectory(prefix: "chimectl-runtime")
        }

        var options: [String] {
            [
                "--config-dir=\(directory.path)/etc", "--config-dir=\(directory.path)/usr",
                "--state-dir=\(directory.path)/state", "--runtime-dir=\(directory.path)/run",
            ]
        }

        func added(_ id: String) -> String { directory.path + "/state/added/\(id).notification" }

        var addedIDs: [String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/state/added")) ?? []
            return names.sorted()
        }

        func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

        func run(_ command: String, _ arguments: [String], now: Date = RuntimeRequestTests.now) -> ChimectlTests.Run {
            ChimectlTests.run([command] + arguments + options, now: now)
        }

        /// Runs a command on a thread of its own: `fire` blocks its thread until the backends, which run as Swift
        /// tasks, have finished, and the test's own thread belongs to the pool they need.
        func runOnThread(_ command: String, _ arguments: [String]) async -> ChimectlTests.Run {
            let all = [command] + arguments + options
            return await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: ChimectlTests.run(all)) }.start()
            }
        }
    }

    static let standup = "[Notification]\nTitle=Stand-up\nDeliver=stdout\n[Trigger]\nOnCalendar=Mon..Fri 09:55\n"

    // MARK: add

    @Test func addWritesEveryOptionAsAKeyAndSaysWhenItFires() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add",
            [
                "--id", "full", "--title", "A new item is downloaded", "--body", "Open it now", "--icon", "mail",
                "--sound", "default", "--urgency", "critical", "--interruption-level", "time-sensitive", "--action",
                "view:View", "--action", "later:Later",
                "--badge", "+1", "--info", "key=value", "--info", "kind=download", "--deliver", "journal,desktop",
                "--at", "2026-12-01 07:00", "--timezone", "Asia/Tokyo", "--persistent",
            ])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output == "Added full: next at Tue 2026-12-01 07:00:00 JST (13h left).\n")
        #expect(run.errors == "chimectl add: chimed is not running; 'full' will be scheduled when it starts.\n")
        #expect(
            try instance.read(instance.added("full")) == """
                # Added with 'chimectl add' on Mon 2026-11-30 10:00:00 CET.
                # 'chimectl cancel full' removes it.
                [Notification]
                Title=A new item is downloaded
                Body=Open it now
                Icon=mail
                Sound=default
                InterruptionLevel=time-sensitive
                Urgency=critical
                Action=view:View
                Action=later:Later
                Badge=+1
                Info=key=value
                Info=kind=download
                Deliver=journal desktop

                [Trigger]
                At=2026-12-01 07:00
                TimeZone=Asia/Tokyo
                Persistent=yes

                """)
        let verify = ChimectlTests.run(["verify", instance.added("full")])
        #expect(verify.status == .success)
        #expect(verify.errors.isEmpty)
    }

    @Test func relativeTimesAreFixedWhenAdded() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add", ["--id", "r", "--title", "T", "--in", "90s", "--until", "+2d", "--json"])
        #expect(run.status == .success, "\(run.errors)")
        #expect(
            run.output == #"{"id":"r","file":"\#(instance.added("r"))","replaced":false,"#
                + #""next":"2026-11-30T09:01:30.000000Z","next_local":"Mon 2026-11-30 10:01:30 CET","scheduled":false}"#
                + "\n")
        #expect(
            try instance.read(instance.added("r")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: --in '90s'; --until '+2d'.
                At=Mon 2026-11-30 09:01:30 UTC
                Until=Wed 2026-12-02 09:00:00 UTC

                """)
        #expect(instance.run("add", ["--id", "t", "--title", "T", "--at", "tomorrow"]).status == .success)
        #expect(
            try instance.read(instance.added("t")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: --at 'tomorrow'.
                At=Mon 2026-11-30 23:00:00 UTC

                """)
        // Two one-shot times at once are a mistake, not two notifications.
        let both = instance.run("add", ["--id", "b", "--title", "T", "--in", "90s", "--at", "tomorrow"])
        #expect(both.status == .usage)
        #expect(both.errors.contains("--in and --at both say when it fires once: give one of them"), "\(both.errors)")
    }

    /// `--in` or `--at` with `--every` (or `--rrule`) is when the series starts: its first occurrence, then one every
    /// interval; the file says so with `From=` (an `At=` before `From=` would never fire).
    @Test func inOrAtWithEveryStartsTheSeries() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run("add", ["--id", "s", "--title", "T", "--in", "1min", "--every", "1h"])
        #expect(run.output == "Added s: next at Mon 2026-11-30 10:01:00 CET (1min 0s left).\n", "\(run.errors)")
        #expect(
            try instance.read(instance.added("s")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: --in '1min'; From= the time of --in, the series' first occurrence.
                Every=1h
                From=Mon 2026-11-30 09:01:00 UTC

                """)
        let daily = instance.run(
            "add", ["--id", "d", "--title", "T", "--at", "2026-12-01 07:30", "--rrule", "FREQ=DAILY"])
        #expect(daily.output == "Added d: next at Tue 2026-12-01 07:30:00 CET (21h left).\n", "\(daily.errors)")
    }

    @Test func everyIsAnchoredOneIntervalFromNowAndCountCountsFromNow() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let every = instance.run("add", ["--id", "e", "--title", "T", "--every", "15min", "--count", "7"])
        #expect(every.output == "Added e: next at Mon 2026-11-30 10:15:00 CET (15min left).\n")
        #expect(
            try instance.read(instance.added("e")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: From= one --every after adding.
                Every=15min
                From=Mon 2026-11-30 09:15:00 UTC
                Count=7

                """)
        let calendar = instance.run(
            "add",
            [
                "--id", "c", "--title", "T", "--on-calendar", "Mon..Fri 09:55", "--on-calendar", "Sat 12:00",
                "--count", "2",
            ])
        #expect(calendar.output == "Added c: next at Tue 2026-12-01 09:55:00 CET (23h left).\n")
        #expect(
            try instance.read(instance.added("c")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: From= the time of adding, for --count.
                OnCalendar=Mon..Fri 09:55
                OnCalendar=Sat 12:00
                From=Mon 2026-11-30 09:00:00 UTC
                Count=2

                """)
    }

    /// `--rrule` without `--from` starts the rule when it is added; `--rdate`/`--exdate` are written as given, and a
    /// wrong part of a rule is named.
    @Test func aRecurrenceRuleStartsWhenAddedAndItsMistakesAreNamed() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add",
            [
                "--id", "r", "--title", "T", "--rrule", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0",
                "--exdate", "20261225", "--rdate", "20261224T120000", "--json",
            ])
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output.contains(#""next":"2026-12-24T11:00:00.000000Z""#), "\(run.output)")
        #expect(
            try instance.read(instance.added("r")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: From= the time of adding, for --rrule.
                RRule=FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0;BYSECOND=0
                RDate=20261224T120000
                ExDate=20261225
                From=Mon 2026-11-30 09:00:00 UTC

                """)
        let bad = instance.run("add", ["--id", "b", "--title", "T", "--rrule", "FREQ=WEEKLY;BYMONTHDAY=1"])
        #expect(bad.status == .usage)
        #expect(
            bad.errors.hasPrefix(
                "chimectl add: --rrule: Invalid RRule= 'FREQ=WEEKLY;BYMONTHDAY=1': BYMONTHDAY is not allowed with "
                    + "FREQ=WEEKLY.\n"), "\(bad.errors)")
    }

    /// A rule takes the minutes and seconds it does not give from its start: without `--from`, that start is
    /// where the rule's time of day starts after now, on the wall clock of `--timezone`, not the moment of adding.
    @Test(arguments: [
        ("FREQ=DAILY;BYHOUR=9", "Europe/Berlin", "From=Mon 2026-11-30 10:00:00 UTC", "Tue 2026-12-01 09:00:00 CET"),
        (
            "RRULE:freq=daily;byhour=18", "Europe/Berlin", "From=Mon 2026-11-30 10:00:00 UTC",
            "Mon 2026-11-30 18:00:00 CET"
        ),
        // India is 5:30 ahead of UTC: its full hours are at half past in UTC.
        ("FREQ=DAILY;BYHOUR=9", "Asia/Kolkata", "From=Mon 2026-11-30 09:30:00 UTC", "Tue 2026-12-01 09:00:00 IST"),
        ("FREQ=HOURLY;BYMINUTE=30", "Europe/Berlin", "From=Mon 2026-11-30 09:18:00 UTC", "Mon 2026-11-30 10:30:00 CET"),
        // A rule that gives no time of day fires at the time of adding, as --every does.
        ("FREQ=DAILY", "Europe/Berlin", "From=Mon 2026-11-30 09:17:23 UTC", "Tue 2026-12-01 10:17:23 CET"),
        (
            "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=5", "Europe/Berlin", "From=Mon 2026-11-30 09:17:23 UTC",
            "Tue 2026-12-01 09:00:05 CET"
        ),
    ])
    func aRuleWithoutFromStartsWhereItsTimeOfDayStarts(rule: String, zone: String, from: String, next: String) throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let now = RuntimeRequestTests.now.addingTimeInterval(17 * 60 + 23)
        let run = instance.run("add", ["--id", "r", "--title", "T", "--rrule", rule, "--timezone", zone], now: now)
        #expect(run.status == .success, "\(run.errors)")
        #expect(run.output.hasPrefix("Added r: next at \(next) ("), "\(run.output)")
        #expect(try instance.read(instance.added("r")).contains("\n\(from)\n"))
    }

    /// `tomorrow 08:00` is what people type; systemd's timestamps take a day word only alone.
    @Test func aDayWordWithATimeIsReadAsThatDayAtThatTime() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        #expect(instance.run("add", ["--id", "t", "--title", "T", "--at", "tomorrow 08:00"]).status == .success)
        #expect(
            try instance.read(instance.added("t")).components(separatedBy: "[Trigger]\n").last == """
                # Fixed when added: --at 'tomorrow 08:00'.
                At=Tue 2026-12-01 07:00:00 UTC

                """)
        let today = instance.run("add", ["--id", "d", "--title", "T", "--at", "Today 18:30:15", "--timezone", "UTC"])
        #expect(today.output.hasPrefix("Added d: next at Mon 2026-11-30 18:30:15 UTC ("), "\(today.errors)")
        let past = instance.run("add", ["--id", "p", "--title", "T", "--at", "today 08:00"])
        #expect(past.status == .failure)
        #expect(past.errors.contains("--at 'today 08:00' is in the past"), "\(past.errors)")
    }

    @Test func aGeneratedIDTellsWhenTheRequestWasMade() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let first = instance.run("add", ["--title", "T", "--in", "1h"])
        let second = instance.run("add", ["--title", "T", "--in", "1h"])
        let ids = instance.addedIDs.map { String($0.dropLast(".notification".count)) }
        #expect(ids.count == 2)
        for id in ids {
            #expect(id.wholeMatch(of: /added-20261130-100000-[0-9a-f]{4}/) != nil, "\(id)")
            #expect(first.output.contains("Added \(id):") || second.output.contains("Added \(id):"))
        }
    }

    @Test func lineBreaksInTheBodyBecomeContinuationLinesThatReadAsSpaces() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add", ["--id", "b", "--title", "T", "--in", "1h", "--body", "Line one\n# not a comment\n\nC:\\\nend"])
        #expect(run.status == .success)
        #expect(
            run.errors.hasPrefix("chimectl add: --body is stored as one line: 'Line one # not a comment  C:\\ end'"))
        let text = try instance.read(instance.added("b"))
        #expect(text.contains("Body=Line one # not a comment \\\nC:\\ end\n"))
        let file = UnitFile(parsing: text, path: "b.notification")
        let loaded = NotificationLoader(systemZone: .utc, zones: .system).load(file, id: "b", path: "b.notification")
        #expect(loaded.notification?.body == "Line one # not a comment  C:\\ end")
        #expect(loaded.diagnostics.isEmpty)
    }

    @Test(arguments: [
        (
            ["--title", "Two\nlines"],
            "invalid --title 'Two\nlines': a value in a notification file cannot contain a line break"
        ),
        (
            ["--title", " padded"],
            "invalid --title ' padded': a value in a notification file cannot start or end with white space"
        ),
        (
            ["--title", "T", "--info", "path=C:\\"],
            "invalid --info 'path=C:\\': a value in a notification file cannot end in a backslash (it would continue the line)"
        ),
        (
            ["--title", "T", "--body", "nul\0"],
            "invalid --body: a value in a notification file cannot contain a NUL character"
        ),
        (
            ["--title", "T", "--deliver", "journal;desktop"],
            "invalid --deliver 'journal;desktop': expected backend names such as journal,stdout"
        ),
        (["--title", ""], "--title cannot be empty"),
        (["--body", "b"], "--title is required"),
        (["--title", "T", "--in", "soon"], "invalid --in 'soon': "),
        (["--title", "T", "--in", "infinity"], "invalid --in 'infinity': a notification must fire at a finite time"),
        (["--title", "T", "--id", ".hidden"], "invalid --id '.hidden': use letters, digits and '-_.@:'"),
        (["--title", "T", "operand"], "unexpected argument 'operand'"),
    ])
    func valuesThatCannotBeWrittenAreUsageErrors(arguments: [String], message: String) throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let trigger = arguments.contains("--in") ? [] : ["--in", "1h"]
        let run = instance.run("add", arguments + trigger)
        #expect(run.status == .usage)
        #expect(run.errors.hasPrefix("chimectl add: \(message)"), "\(run.errors)")
        #expect(run.errors.contains("Usage: chimectl add"))
        #expect(instance.addedIDs.isEmpty)
    }

    @Test func aTriggerIsRequired() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run("add", ["--title", "T", "--count", "3"])
        #expect(run.status == .usage)
        #expect(
            run.errors.hasPrefix("chimectl add: say when: --in, --at, --on-calendar, --every, --rrule or --rdate\n"))
    }

    @Test func invalidValuesAreReportedAsVerifyReportsThemAndNothingIsWritten() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add",
            [
                "--id", "bad", "--title", "T", "--urgency", "loud", "--on-calendar", "Mon 25:00", "--timezone",
                "Mars/Base",
            ])
        // Each problem names the option that caused it, in the order of the options' lines in the request.
        #expect(run.status == .usage)
        #expect(
            run.errors.hasPrefix(
                """
                chimectl add: --urgency: Invalid Urgency= 'loud': expected low, normal or critical.
                chimectl add: --on-calendar: Invalid OnCalendar= 'Mon 25:00': The hour 25 is out of range.
                chimectl add: --timezone: Unknown time zone 'Mars/Base' in TimeZone=.
                chimectl add: nothing was written
                Usage: chimectl add

                """.dropLast()), "\(run.errors)")
        #expect(instance.addedIDs.isEmpty)
        #expect(run.output.isEmpty)
    }

    @Test func aBackendTheInstanceDoesNotHaveIsRefused() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run("add", ["--id", "x", "--title", "T", "--in", "1h", "--deliver", "journal,destkop"])
        #expect(run.status == .usage)
        #expect(
            run.errors.hasPrefix(
                "chimectl add: --deliver: 'destkop' is no backend of this instance. Did you mean 'desktop'? "
                    + "Backends: journal, stdout, desktop, command, webhook, apprise.\n"), "\(run.errors)")
        #expect(instance.addedIDs.isEmpty)
    }

    @Test func aValueBeyondItsBoundIsRefusedAsChimedWouldRefuseIt() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(
            "add", ["--id", "long", "--title", "T", "--body", String(repeating: "x", count: 70_000), "--every", "1h"])
        #expect(run.status == .usage)
        let lines = run.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(
            lines.first == "chimectl add: --body: Body= is 70,000 bytes long, more than the 64 KiB a value may have.")
        #expect(lines.dropFirst().first == "chimectl add: nothing was written")
        #expect(instance.addedIDs.isEmpty)
    }

    @Test(arguments: [
        (
            ["--at", "2026-11-29 12:00"],
            "--at '2026-11-29 12:00' is in the past (Sun 2026-11-29 12:00:00 CET, 22h ago)"
        ),
        (["--at", "2026-11-30 10:00"], "--at '2026-11-30 10:00' is in the past (Mon 2026-11-30 10:00:00 CET, now)"),
        (
            ["--at", "2026-11-30 17:00", "--timezone", "Asia/Tokyo"],
            "--at '2026-11-30 17:00' is in the past (Mon 2026-11-30 17:00:00 JST, 1h 0min ago)"
        ),
        (["--in", "0"], "--in '0' is in the past (Mon 2026-11-30 10:00:00 CET, now)"),
        (["--at", "-5min"], "--at '-5min' is in the past (Mon 2026-11-30 09:55:00 CET, 5min ago)"),
    ])
    func aPastAtOrInIsRefused(trigger: [String], message: String) throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run("add", ["--title", "T"] + trigger)
        #expect(run.status == .failure)
        #expect(run.errors == "chimectl add: \(message); a notification must fire in the future\n")
        #expect(instance.addedIDs.isEmpty)
    }

    @Test func aRequestThatWouldNeverFireIsRefused() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run("add", ["--title", "T", "--on-calendar", "daily", "--until", "2026-11-01"])
        #expect(run.status == .failure)
        #expect(
            run.errors
                == "chimectl add: the notification would never fire (never (Until= is past)); nothing was written\n")
        #expect(instance.addedIDs.isEmpty)
    }

    @Test func anExistingIDIsReplaced() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        #expect(instance.run("add", ["--id", "tea", "--title", "Tea", "--in", "1h"]).status == .success)
        let again = instance.run("add", ["--id", "tea", "--title", "Green tea", "--in", "2h", "--json"])
        #expect(again.status == .success)
        #expect(again.output.contains(#""replaced":true"#))
        #expect(instance.addedIDs == ["tea.notification"])
        let text = try instance.read(instance.added("tea"))
        #expect(text.contains("Title=Green tea\n") && text.contains("At=Mon 2026-11-30 11:00:00 UTC\n"))
        #expect(!text.contains("Title=Tea"))
        let plain = instance.run("add", ["--id", "tea", "--title", "Tea", "--in", "1h"])
        #expect(plain.output.hasPrefix("Replaced tea: next at Mon 2026-11-30 11:00:00 CET"))
    }

    @Test func theIDOfAFileCannotBeTakenByARequest() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("usr/standup.notification", Self.standup)
        let run = instance.run("add", ["--id", "standup", "--title", "T", "--in", "1h"])
        #expect(run.status == .failure)
        #expect(
            run.errors == "chimectl add: 'standup' is the id of \(instance.directory.path)/usr/standup.notification, "
                + "which would win over the request; choose another --id\n")
        #expect(instance.addedIDs.isEmpty)
    }

    // MARK: cancel

    @Test func cancelRemovesOnlyRequestsAndSaysWhatToDoWithTheRest() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("etc/standup.notification", Self.standup)
        for id in ["a", "b", "c"] { _ = instance.run("add", ["--id", id, "--title", id, "--in", "1h"]) }
        let run = instance.run("cancel", ["a", "standup", "nope", "c"])
        #expect(run.status == .failure)
        #expect(run.output == "Cancelled a.\nCancelled c.\n")
        #expect(
            run.errors == """
                chimectl cancel: 'standup' is defined by \(instance.directory.path)/etc/standup.notification, not \
                added at run time; 'chimectl disable standup' switches it off
                chimectl cancel: no notification 'nope' was added at run time (none in \(instance.directory.path)/state/added)
                chimectl cancel: chimed is not running; nothing to unschedule until it starts.

                """)
        #expect(instance.addedIDs == ["b.notification"])
        #expect(FileManager.default.fileExists(atPath: instance.directory.path + "/etc/standup.notification"))
    }

    @Test func cancelAllRemovesEveryRequest() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        for id in ["a", "b"] { _ = instance.run("add", ["--id", id, "--title", id, "--in", "1h"]) }
        let run = instance.run("cancel", ["--all", "--json"])
        #expect(run.status == .success)
        #expect(run.output == #"{"cancelled":["a","b"],"failed":[]}"# + "\n")
        #expect(instance.addedIDs.isEmpty)
        let again = instance.run("cancel", ["--all"])
        #expect(again.status == .success)
        #expect(
            again.output == "Nothing was added at run time (\(instance.directory.path)/state/added holds no request).\n"
        )
    }

    @Test(arguments: [
        ["cancel"], ["cancel", "--all", "a"], ["disable"], ["enable"], ["fire"], ["fire", "--deliver=a;b", "x"],
    ])
    func missingOrConflictingOperandsAreUsageErrors(arguments: [String]) throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let run = instance.run(arguments[0], Array(arguments.dropFirst()))
        #expect(run.status == .usage)
        #expect(run.errors.contains("Usage: chimectl \(arguments[0])"))
    }

    // MARK: disable, enable

    @Test func disableWritesADropInIntoTheFirstDirectoryAndEnableRemovesIt() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("usr/standup.notification", Self.standup)
        let dropIn = instance.directory.path + "/etc/standup.notification.d/50-chimectl-disable.conf"
        let disable = instance.run("disable", ["standup"])
        #expect(disable.status == .success, "\(disable.errors)")
        #expect(disable.output == "Disabled standup (\(dropIn)).\n")
        #expect(
            try instance.read(dropIn)
                == "# Written by 'chimectl disable'; 'chimectl enable' removes it.\n[Notification]\nEnabled=no\n")
        let verify = ChimectlTests.run([
            "verify", "--json", instance.directory.path + "/etc", instance.directory.path + "/usr",
        ])
        #expect(verify.output.contains(#""enabled":false"#), "\(verify.output)")
        #expect(instance.run("disable", ["standup"]).output == "standup is disabled already.\n")

        let enable = instance.run("enable", ["standup"])
        #expect(enable.status == .success)
        #expect(enable.output == "Enabled standup (removed \(dropIn)).\n")
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/etc/standup.notification.d"))
        #expect(instance.run("enable", ["standup"]).output == "standup is enabled already.\n")
    }

    @Test func enableSaysWhatElseStillDisables() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("usr/standup.notification", Self.standup)
        try instance.directory.write("usr/standup.notification.d/90-off.conf", "[Notification]\nEnabled=no\n")
        #expect(instance.run("disable", ["standup"]).status == .success)
        let enable = instance.run("enable", ["standup"])
        #expect(enable.status == .failure)
        #expect(
            enable.errors == "chimectl enable: 'standup' is still disabled: Enabled=no at "
                + "\(instance.directory.path)/usr/standup.notification.d/90-off.conf:2:1\n")
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/etc/standup.notification.d"))
    }

    @Test func disableSaysWhenALaterDropInEnablesAgain() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("etc/standup.notification", Self.standup)
        try instance.directory.write("etc/standup.notification.d/90-on.conf", "[Notification]\nEnabled=yes\n")
        let run = instance.run("disable", ["standup"])
        #expect(run.status == .failure)
        #expect(run.errors.hasPrefix("chimectl disable: 'standup' stays enabled: a drop-in after "))
    }

    @Test func disableAndEnableLeaveRequestsAndUnknownIDsAlone() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        _ = instance.run("add", ["--id", "tea", "--title", "Tea", "--in", "1h"])
        let run = instance.run("disable", ["tea", "nope"])
        #expect(run.status == .failure)
        #expect(
            run.errors == """
                chimectl disable: 'tea' was added at run time; 'chimectl cancel tea' removes it
                chimectl disable: no notification 'nope' in \(instance.directory.path)/etc, \(instance.directory.path)/usr

                """)
        #expect(!FileManager.default.fileExists(atPath: instance.directory.path + "/etc"))
    }

    // MARK: fire

    @Test func fireDeliversNowThroughTheBackendsAndReportsEach() async throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("etc/standup.notification", Self.standup)
        let run = await instance.runOnThread("fire", ["standup"])
        #expect(run.status == .success, "\(run.output)\n\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(
            lines.first?.hasPrefix(
                #"{"id":"standup","title":"Stand-up","body":"","info":{},"fire_time":"2026-11-30T09:00:00.000000Z","#)
                == true)
        #expect(Array(lines.dropFirst()) == ["Fired standup: Stand-up", "  stdout: delivered"])
    }

    @Test func fireReportsAFailingBackendAndLoadsRequestsToo() async throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        _ = instance.run("add", ["--id", "tea", "--title", "Tea", "--in", "1h", "--info", "cup=green"])
        let run = await instance.runOnThread("fire", ["--deliver", "stdout,carrier-pigeon", "--json", "tea"])
        #expect(run.status == .failure)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""id":"tea","title":"Tea","body":"","info":{"cup":"green"}"#) == true)
        #expect(
            lines.last
                == #"{"id":"tea","title":"Tea","fire_time":"2026-11-30T09:00:00.000000Z","backends":["#
                + #"{"backend":"stdout","delivered":true},"#
                + #"{"backend":"carrier-pigeon","delivered":false,"error":"no backend named 'carrier-pigeon'"}]}"#)
    }

    @Test func fireUsesTheBackendsOfChimedConf() async throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        let received = instance.directory.path + "/received.json"
        try instance.directory.write(
            "etc/record", "#!/bin/sh\nexec /bin/cat > \"$1\"\n", permissions: 0o755)
        try instance.directory.write(
            "etc/chimed.conf",
            "[Command]\nName=record\nExec=\(instance.directory.path)/etc/record \(received)\n")
        try instance.directory.write("etc/standup.notification", Self.standup)
        let run = await instance.runOnThread("fire", ["--deliver", "record,webhook", "standup"])
        #expect(run.status == .failure)
        #expect(
            run.output.split(separator: "\n").map(String.init) == [
                "Fired standup: Stand-up", "  record: delivered",
                "  webhook: failed: cannot deliver to 'webhook' here: webhook backends are only available in chimed",
            ])
        let json = try String(contentsOfFile: received, encoding: .utf8)
        #expect(json.hasPrefix(#"{"id":"standup","title":"Stand-up","#), "\(json)")
        #expect(json.contains(#""backend":"record""#))
    }

    @Test func fireRefusesWhatDoesNotLoad() throws {
        let instance = try Instance()
        defer { instance.directory.remove() }
        try instance.directory.write("etc/broken.notification", "[Notification]\nTitle=B\n[Trigger]\nEvery=0\n")
        let run = instance.run("fire", ["broken", "nope"])
        #expect(run.status == .failure)
        #expect(run.output.isEmpty)
        #expect(
            run.errors == """
                \(instance.directory.path)/etc/broken.notification:4:7: Every= must be a finite interval greater \
                than zero, not '0'.
                chimectl fire: 'broken' does not load
                chimectl fire: no notification 'nope' in \(instance.directory.path)/etc, \(instance.directory.path)/usr

                """)
    }
}
