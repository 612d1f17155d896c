import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

/// `chimectl verify DIR` and `chimed --check --config-dir=DIR` report the same problems, in the same order (by
/// file and line): file ownership and mode, generators, backends `Deliver=` names that do not exist, a past `At=`,
/// misspelt keys, sections, zones and file names, keys in the wrong section, a quoted calendar event, a
/// generator's notification whose id a file took, and directories that are missing or
/// hold nothing.
@Suite(.serialized) struct VerifyAgreesWithCheckTests {
    let chimed = BinaryLocator.path(of: "chimed")
    let chimectl = BinaryLocator.path(of: "chimectl")

    @Test func bothReportTheSameProblems() throws {
        let directory = try TemporaryDirectory(prefix: "chime-verify-check")
        defer { directory.remove() }
        let path = directory.path
        try directory.write(
            "good.notification", "[Notification]\nTitle=Good\nDeliver=jurnal\n[Trigger]\nOnCalendar=hourly\n")
        try directory.write("twin.notification", "[Notification]\nTitle=Twin\n[Trigger]\nOnCalendar=hourly\n")
        try directory.write("past.notification", "[Notification]\nTitle=Past\n[Trigger]\nAt=2020-01-01 10:00\n")
        try directory.write(
            "open.notification", "[Notification]\nTitle=Open\n[Trigger]\nOnCalendar=daily\n", permissions: 0o666)
        try directory.write("typo.notification", "[notification]\nTitel=Typo\n[Trigger]\nOnCalendar=daily\n")
        try directory.write("typo.notificaton", "[Notification]\nTitle=Typo\n[Trigger]\nOnCalendar=daily\n")
        try directory.write("typo.notificaton~", "an editor's backup, passed over in silence\n")
        try directory.write(
            "zone.notification",
            "[Notification]\nTitle=Zone\nTimeZone=Asia/Tokyo\n[Trigger]\nOnCalendar=Mon 09:00 Europe/Berlinn\n"
                + "OnCalendar=\"Tue 09:00\"\n[Trigger]\nTimeZone=Berlin\n")
        try directory.write(
            "generators.d/list",
            "#!/bin/sh\necho '{\"Id\":\"made\",\"Title\":\"Made\",\"OnCalendar\":\"weekly\"}'\n"
                + "echo '{\"Id\":\"twin\",\"Title\":\"Twin\",\"OnCalendar\":\"weekly\"}'\n",
            permissions: 0o755)
        try directory.write(
            "generators.d/broken", "#!/bin/sh\necho 'offline' >&2\nexit 2\n", permissions: 0o755)

        let check = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(path)"], environment: ["TZ": "UTC"])
        let verify = try ProcessRunner.run(chimectl, ["verify", path], environment: ["TZ": "UTC"])
        #expect(check.status == 1)
        #expect(verify.status == 1)
        let expected = [
            "\(path)/generators.d/broken: Generator exited with status 2 (stderr: \"offline\").",
            "\(path)/generators.d/list:2: A notification named 'twin' was already loaded, ignoring this one.",
            "\(path)/good.notification:3:9: Deliver= names 'jurnal', which is no backend of this instance; leaving "
                + "the notification out. Did you mean 'journal'? Backends: journal, stdout, desktop, command, webhook, "
                + "apprise.",
            "\(path)/open.notification: File is writable by its group and by others; refusing to load it "
                + "(chmod go-w \(path)/open.notification).",
            "\(path)/past.notification: At= is past (Wed 2020-01-01 10:00:00 UTC, ",
            "\(path)/typo.notification: Missing Title= in [Notification].",
            "\(path)/typo.notification:1:1: Unknown section 'notification', ignoring. Did you mean 'Notification'?",
            "\(path)/typo.notificaton: Ignoring: only names ending in '.notification' are read here. Did you mean "
                + "'typo.notification'?",
            "\(path)/zone.notification:3:1: Unknown key 'TimeZone' in section [Notification], ignoring. TimeZone= "
                + "belongs in [Trigger].",
            "\(path)/zone.notification:5:22: Invalid OnCalendar= 'Mon 09:00 Europe/Berlinn': Unknown time zone "
                + "'Europe/Berlinn'; did you mean 'Europe/Berlin'?",
            "\(path)/zone.notification:6:12: Invalid OnCalendar= '\"Tue 09:00\"': Quotes are not part of a calendar "
                + "event; write it without them: 'Tue 09:00'.",
            "\(path)/zone.notification:8:10: Unknown time zone 'Berlin' in TimeZone=. Did you mean 'Europe/Berlin'?",
        ]
        for (name, output) in [("check", check), ("verify", verify)] {
            let lines = output.standardError.split(separator: "\n").map(String.init)
            #expect(lines.count == expected.count, "\(name): \(lines)")
            for (line, prefix) in zip(lines, expected) {
                #expect(line.hasPrefix(prefix), "\(name): \(line)")
            }
            #expect(lines.contains { $0.hasSuffix("): 'past' will not fire.") }, "\(name): \(lines)")
        }
        // What a generator made is listed by both.
        #expect(check.standardOutput.contains("  made: "))
        #expect(verify.standardOutput.contains("\nmade "), "\(verify.standardOutput)")
        // The generator's twin of a file's notification is left out by both: the file's is listed, once.
        #expect(check.standardOutput.components(separatedBy: "  twin: ").count == 2, "\(check.standardOutput)")
        #expect(verify.standardOutput.components(separatedBy: "\ntwin ").count == 2, "\(verify.standardOutput)")
    }

    /// An `Every=` without `From=` counts from the first time the instance saw it: `verify` and `--check` read
    /// that from the instance's state, and show the next occurrence the daemon has armed.
    @Test func everyWithoutFromFiresWhereTheDaemonArmedIt() throws {
        let directory = try TemporaryDirectory(prefix: "chime-verify-check")
        defer { directory.remove() }
        try directory.write("config/water.notification", "[Notification]\nTitle=Water\n[Trigger]\nEvery=50min\n")
        let options = [
            "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/state",
            "--runtime-dir=\(directory.path)/run",
        ]
        let notify = try NotifySocket(directory: directory.path)
        let daemon = try RunningProcess(
            chimed, options + ["--deliver=stdout"], environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC"])
        #expect(notify.receive(until: { $0.contains("READY=1") }, timeout: 10).last?.contains("READY=1") == true)
        let list = try ProcessRunner.run(chimectl, ["list", "--json"] + options)
        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
        let armed = try #require(Self.next(in: list.standardOutput), "\(list)")
        // Later than the daemon's start, so that a count from now would differ.
        usleep(1_100_000)
        let verify = try ProcessRunner.run(
            chimectl, ["verify", "--json", "\(directory.path)/config"] + options, environment: ["TZ": "UTC"])
        #expect(Self.next(in: verify.standardOutput) == armed, "\(verify.standardOutput)")
        let check = try ProcessRunner.run(chimed, ["--check"] + options, environment: ["TZ": "UTC"])
        let shown = Timestamp.format(armed, zone: .utc) ?? "?"
        #expect(check.standardOutput.contains("  water: \(shown) — Every=50min"), "\(check.standardOutput)")
    }

    /// The first `next` of a JSON line of `list` or `verify`.
    static func next(in output: String) -> Date? {
        guard let line = output.split(separator: "\n").first,
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        let next = object["next"] as? String ?? (object["next"] as? [String])?.first
        return next.flatMap(Timestamp.parseISO8601)
    }

    /// Directories that cannot be read are each named, with why: `--check` fails on them all, `verify` says so for
    /// each (and not that they hold nothing).
    @Test func unreadableDirectoriesAreEachNamedWithWhy() throws {
        guard geteuid() == 0 else { try Test.cancel("Skipped: needs root to run chimed and chimectl as nobody") }
        let directory = try TemporaryDirectory(prefix: "chime-unreadable")
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        try directory.write("a/tea.notification", "[Notification]\nTitle=Tea\n[Trigger]\nOnCalendar=daily\n")
        try FileManager.default.createDirectory(atPath: directory.path + "/c", withIntermediateDirectories: true)
        for name in ["a", "c"] { chmod(directory.path + "/" + name, 0o700) }
        let a = directory.path + "/a"
        let c = directory.path + "/c"
        let nobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        let check = try ProcessRunner.run(
            "/usr/bin/setpriv", nobody + [chimed, "--check", "--config-dir=\(a)", "--config-dir=\(c)"])
        #expect(check.status == 1)
        #expect(
            check.standardError.contains(
                "Cannot read configuration directory \(a) (Permission denied), \(c) (Permission denied)"),
            "\(check.standardError)")
        let verify = try ProcessRunner.run("/usr/bin/setpriv", nobody + [chimectl, "verify", a, c])
        #expect(verify.status == 1)
        #expect(
            verify.standardError
                == "\(a): Failed to list directory: Permission denied.\n\(c): Failed to list directory: Permission denied.\n"
        )
    }

    /// A configuration directory anyone may write to lets anyone add or mask a notification: both refuse what is in
    /// it, with the command that fixes it, and fail.
    @Test func aDirectoryOthersMayWriteToIsRefused() throws {
        let directory = try TemporaryDirectory(prefix: "chime-open-directory")
        defer { directory.remove() }
        let open = directory.path + "/open"
        try directory.write("open/tea.notification", "[Notification]\nTitle=Tea\n[Trigger]\nOnCalendar=daily\n")
        chmod(open, 0o777)
        let check = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(open)"], environment: ["TZ": "UTC"])
        let verify = try ProcessRunner.run(chimectl, ["verify", open], environment: ["TZ": "UTC"])
        let refusal =
            "\(open): Directory is writable by its group and by others; refusing to load the notifications in it "
            + "(chmod go-w \(open))."
        for (name, output) in [("check", check), ("verify", verify)] {
            #expect(output.status == 1, "\(name)")
            #expect(output.standardError.split(separator: "\n").first.map(String.init) == refusal, "\(name)")
            #expect(!output.standardOutput.contains("tea"), "\(name): \(output.standardOutput)")
        }
    }

    @Test func aMissingDirectoryFailsAndAnEmptyOneWarns() throws {
        let directory = try TemporaryDirectory(prefix: "chime-verify-check")
        defer { directory.remove() }
        let typo = directory.path + "/confg"
        let check = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(typo)"])
        #expect(check.status == 1)
        #expect(check.standardError == "\(typo): No such configuration directory.\n")
        let verify = try ProcessRunner.run(chimectl, ["verify", typo])
        #expect(verify.status == 1)
        #expect(verify.standardError == "\(typo): No such file or directory\n")

        let empty = "\(directory.path): No notifications (NAME.notification) and no generators (generators.d/) here.\n"
        let checkEmpty = try ProcessRunner.run(chimed, ["--check", "--config-dir=\(directory.path)"])
        #expect(checkEmpty.status == 0)
        #expect(checkEmpty.standardError == empty)
        let verifyEmpty = try ProcessRunner.run(chimectl, ["verify", directory.path])
        #expect(verifyEmpty.status == 0)
        #expect(verifyEmpty.standardError == empty)
    }
}
