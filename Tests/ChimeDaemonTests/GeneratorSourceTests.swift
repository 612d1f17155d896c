import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `GeneratorSource` with real (small, `/bin/sh`) generators: what they print loads, and a failing, hanging,
/// crashing, chatty or untrusted generator is reported by name and skipped while the rest loads.
@Suite struct GeneratorSourceTests {
    static let berlin = try! ZoneDatabase.system.rules(named: "Europe/Berlin")

    /// A configuration directory; `generator(_:_:)` adds executables to its `generators.d/`.
    struct Config {
        let directory: TemporaryDirectory

        init() throws {
            directory = try TemporaryDirectory(prefix: "chime-generators")
        }

        var path: String { directory.path }

        @discardableResult
        func generator(_ name: String, _ body: String, permissions: Int = 0o755) throws -> String {
            try directory.write("generators.d/\(name)", "#!/bin/sh\n" + body + "\n", permissions: permissions)
        }
    }

    static func line(_ id: String, _ extra: String = "") -> String {
        #"echo '{"Id":"\#(id)","Title":"\#(id)","OnCalendar":"daily"\#(extra)}'"#
    }

    func load(
        _ directories: [String], files: Bool = false, timeout: Duration = .seconds(10), outputLimit: Int = 1 << 20,
        environment: [String: String] = [:]
    ) throws -> LoadedSchedule {
        var sources: [any ScheduleSource] = []
        if files { sources.append(NotificationDirectorySource(directories: directories)) }
        sources.append(
            GeneratorSource(
                directories: directories, environment: environment, timeout: timeout, outputLimit: outputLimit))
        return try ScheduleLoader(sources: sources).load(systemZone: Self.berlin)
    }

    func ids(_ schedule: LoadedSchedule) -> [String] { schedule.notifications.map(\.notification.id) }
    func problems(_ schedule: LoadedSchedule) -> [String] { schedule.problems.map(\.description) }

    @Test func eachLineBecomesANotificationFromThatLine() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator("week", Self.line("monday") + "\necho\n" + Self.line("tuesday"))
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["monday", "tuesday"])
        #expect(schedule.notifications.map(\.source) == [path, path])
        #expect(schedule.notifications.map(\.line) == [1, 3])
        #expect(schedule.problems.isEmpty)
    }

    @Test func aFailingGeneratorIsReportedWithItsStderrAndContributesNothing() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "calendar",
            Self.line("half") + "\necho 'connecting…' >&2\necho 'cannot reach calendar.example.org' >&2\nexit 3")
        try config.generator("week", Self.line("monday"))
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["monday"])
        #expect(
            problems(schedule) == [
                "\(path): Generator exited with status 3; ignoring the 1 line(s) it printed, as a generator that "
                    + "fails may have stopped halfway (stderr: \"connecting… / cannot reach calendar.example.org\")."
            ])
    }

    @Test func aHangingGeneratorIsKilledAtTheTimeoutWithWhatItStarted() throws {
        let config = try Config()
        defer { config.directory.remove() }
        // The child keeps stdout open: without killing the group, reading would wait for it.
        let path = try config.generator(
            "hang", Self.line("early") + "\nsleep 60 &\necho $! > \"$CHIME_CONFIG_DIR/child.pid\"\nwait")
        try config.generator("week", Self.line("monday"))
        let start = ContinuousClock.now
        let schedule = try load([config.path], timeout: .milliseconds(300))
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(5), "\(elapsed)")
        #expect(ids(schedule) == ["monday"])
        #expect(
            problems(schedule) == [
                "\(path): Generator did not finish within 300ms; killed it and everything it started; ignoring the "
                    + "1 line(s) it printed, as a generator that fails may have stopped halfway."
            ])
        let child = try #require(
            Int32(
                try String(contentsOfFile: config.path + "/child.pid", encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines)))
        #expect(Self.isGone(child))
    }

    @Test func aProcessLeftBehindCountsAsNotFinished() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "daemonizes", "sleep 60 >/dev/null 2>&1 &\necho $! > \"$CHIME_CONFIG_DIR/child.pid\"\n" + Self.line("x"))
        let schedule = try load([config.path], timeout: .milliseconds(300))
        #expect(schedule.notifications.isEmpty)
        #expect(
            problems(schedule) == [
                "\(path): Generator did not finish within 300ms; killed it and everything it started; ignoring the "
                    + "1 line(s) it printed, as a generator that fails may have stopped halfway."
            ])
        let child = try String(contentsOfFile: config.path + "/child.pid", encoding: .utf8)
        #expect(Self.isGone(try #require(Int32(child.trimmingCharacters(in: .newlines)))))
    }

    /// Whether `pid` has ended: no such process, or a zombie waiting for whoever adopted it.
    static func isGone(_ pid: Int32) -> Bool {
        for _ in 0..<100 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if let state = stat.split(separator: ")").last?.split(separator: " ").first, state == "Z" { return true }
            usleep(10_000)  // SIGKILL is delivered asynchronously
        }
        return false
    }

    @Test func garbageOnLine2IsReportedAndLines1And3Load() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "exams", Self.line("first") + "\necho 'Traceback (most recent call last):'\n" + Self.line("third"))
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["first", "third"])
        #expect(problems(schedule) == ["\(path):2:1: Invalid JSON: expected a value, found 'T'."])
    }

    @Test func anInvalidValueGetsTheMessageOfAFile() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "exams", #"echo '{"Id":"exam-x","Title":"x","At":"2027-13-01 07:00"}'"# + "\n" + Self.line("ok"))
        try config.directory.write(
            "exam-y.notification", "[Notification]\nTitle=y\n[Trigger]\nAt=2027-13-01 07:00\n")
        let schedule = try load([config.path], files: true)
        #expect(ids(schedule) == ["ok"])
        #expect(
            problems(schedule) == [
                "\(config.path)/exam-y.notification:4:4: Invalid At= '2027-13-01 07:00': column 6: "
                    + "not a timestamp systemd understands.",
                "\(path):1:34: Invalid At= '2027-13-01 07:00': column 6: not a timestamp systemd understands.",
            ])
    }

    /// Open for writing (ETXTBSY) for a moment, as while another thread forks: tried again shortly, not failed.
    @Test func aGeneratorBusyForAMomentStillRuns() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator("week", Self.line("monday"))
        let writer = open(path, O_WRONLY)
        #expect(writer >= 0)
        // A thread of its own: under the load of the whole suite, a queue's worker could come too late.
        Thread.detachNewThread {
            usleep(30_000)
            close(writer)
        }
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["monday"])
        #expect(schedule.problems.isEmpty)
    }

    @Test func aGeneratorBusyForLongIsReported() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator("week", Self.line("monday"))
        let writer = open(path, O_WRONLY)
        defer { close(writer) }
        let schedule = try load([config.path])
        #expect(problems(schedule) == ["\(path): Failed to run generator: Text file busy."])
    }

    @Test func aCrashIsReportedWithTheSignal() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator("crash", "kill -SEGV $$")
        let schedule = try load([config.path])
        #expect(problems(schedule) == ["\(path): Generator was killed by signal 11 (Segmentation fault)."])
    }

    /// A generator that prints past its limit is killed; the whole lines it printed within the limit are kept.
    @Test func tooMuchOutputIsCutShortAndWhatFitsIsKept() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "flood",
            "i=100; while :; do i=$((i+1)); printf '{\"Id\":\"n%d\",\"Title\":\"T\",\"At\":\"2099-01-01\"}\\n' $i; done"
        )
        let schedule = try load([config.path], outputLimit: 1000)
        // Each line is 44 bytes: twenty-two of them fit in 1,000.
        #expect(
            problems(schedule) == [
                "\(path): Generator printed more than 1,000 bytes (GeneratorMaxOutput=); keeping the 968 bytes of "
                    + "whole lines within it and ignoring the rest."
            ])
        #expect(schedule.notifications.map(\.notification.id) == (101...122).map { "n\($0)" })
    }

    @Test func aGeneratorThatCannotStartIsReported() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let script = try config.directory.write("generators.d/plain", "echo hello\n", permissions: 0o755)
        let interpreter = try config.directory.write(
            "generators.d/ruby", "#!/nonexistent/ruby\n", permissions: 0o755)
        let schedule = try load([config.path])
        #expect(
            problems(schedule) == [
                "\(script): Failed to run generator: Exec format error (does it start with a #! line?).",
                "\(interpreter): Failed to run generator: No such file or directory (is the interpreter named in "
                    + "its #! line installed?).",
            ])
    }

    @Test func aGeneratorOthersCanWriteIsRefusedAndNotRun() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator(
            "open", "touch \"$CHIME_CONFIG_DIR/ran\"\n" + Self.line("open"), permissions: 0o757)
        try config.generator("week", Self.line("monday"))
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["monday"])
        #expect(
            problems(schedule) == [
                "\(path): Generator is writable by others; refusing to run it (chmod o-w \(path))."
            ])
        #expect(!FileManager.default.fileExists(atPath: config.path + "/ran"))
    }

    @Test func aGeneratorsDirectoryItsGroupCanWriteIsRefused() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.generator("week", Self.line("monday"))
        let directory = config.path + "/generators.d"
        try FileManager.default.setAttributes([.posixPermissions: 0o775], ofItemAtPath: directory)
        let schedule = try load([config.path])
        #expect(schedule.notifications.isEmpty)
        #expect(
            problems(schedule) == [
                "\(directory): Directory is writable by its group; refusing to run the generators in it "
                    + "(chmod g-w \(directory))."
            ])
    }

    @Test func anEarlierDirectoryHidesOrMasksANameAndOnlyExecutablesRun() throws {
        let early = try Config()
        let late = try Config()
        defer {
            early.directory.remove()
            late.directory.remove()
        }
        try early.generator("a", Self.line("early-a"))
        try late.generator("a", Self.line("late-a"))
        try FileManager.default.createSymbolicLink(
            atPath: early.path + "/generators.d/b", withDestinationPath: "/dev/null")
        try late.generator("b", Self.line("late-b"))
        // Not executable: not a generator, and it does not hide late's c.
        try early.generator("c", Self.line("early-c"), permissions: 0o644)
        try late.generator("c", Self.line("late-c"))
        try early.generator(".d", Self.line("hidden"))
        try early.generator("d~", Self.line("backup"))
        try early.generator("e.dpkg-old", Self.line("leftover"))
        let schedule = try load([early.path, late.path])
        #expect(ids(schedule) == ["early-a", "late-c"])
        #expect(schedule.problems.isEmpty)
    }

    @Test func theEnvironmentSaysWhereItRunsAndNothingElseLeaks() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.generator(
            "env",
            #"""
            printf '{"Id":"env","Title":"%s","Body":"%s|%s|%s|%s|%s","OnCalendar":"daily"}\n' \
                "$CHIME_CONFIG_DIR" "$(pwd)" "$#" "${NOTIFY_SOCKET:-unset}" "$FAVOURITE" "$(wc -c)"
            """#)
        let schedule = try load(
            [config.path], environment: ["NOTIFY_SOCKET": "/run/systemd/notify", "FAVOURITE": "tea"])
        let notification = try #require(schedule.notifications.first?.notification)
        let real = try #require(realpath(config.path, nil))
        defer { free(real) }
        #expect(notification.title == config.path)
        // Working directory: the configuration directory; no arguments; stdin is empty (0 bytes).
        #expect(notification.body == "\(String(cString: real))|0|unset|tea|0")
    }

    @Test func filesComeFirstWhenIdsCollide() throws {
        let config = try Config()
        defer { config.directory.remove() }
        try config.directory.write("standup.notification", "[Notification]\nTitle=file\n[Trigger]\nOnCalendar=daily\n")
        let path = try config.generator("meetings", Self.line("standup"))
        let schedule = try load([config.path], files: true)
        #expect(schedule.notifications.map(\.notification.title) == ["file"])
        #expect(
            problems(schedule) == [
                "\(path):1: A notification named 'standup' was already loaded, ignoring this one."
            ])
    }

    @Test func stderrOfASuccessfulGeneratorIsAWarning() throws {
        let config = try Config()
        defer { config.directory.remove() }
        let path = try config.generator("exams", "echo 'exams.csv:4: no date, skipping' >&2\n" + Self.line("ok"))
        let schedule = try load([config.path])
        #expect(ids(schedule) == ["ok"])
        #expect(problems(schedule) == ["\(path): Generator wrote to stderr: \"exams.csv:4: no date, skipping\"."])
        #expect(schedule.errorCount == 0)
    }
}
