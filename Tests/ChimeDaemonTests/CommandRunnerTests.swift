import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation
import Glibc
import Testing

@testable import ChimeDaemon

/// `CommandRunner` with real programs (`/bin/sh`, coreutils): how they end, what reaches them, and that a program
/// that hangs is killed with everything it started.
@Suite struct CommandRunnerTests {
    static let shell = "/bin/sh"

    func run(
        _ script: String, input: [UInt8] = [], timeout: Duration = .seconds(20), outputLimit: Int? = nil,
        environment: [String: String] = ["PATH": CommandRunner.defaultPath]
    ) async throws -> CommandOutcome {
        try await CommandRunner.run(
            [Self.shell, "-c", script], environment: environment, input: Data(input), timeout: timeout,
            outputLimit: outputLimit)
    }

    @Test(arguments: [0, 1, 3, 127, 255] as [Int32])
    func theExitStatusIsReported(status: Int32) async throws {
        #expect(try await run("exit \(status)").ending == .exited(status: status))
    }

    @Test func aSignalThatEndsItIsReported() async throws {
        #expect(try await run("kill -USR1 $$").ending == .killedBySignal(SIGUSR1))
    }

    @Test func signalsChimedIgnoresAreAtTheirDefaultInTheProgram() async throws {
        // chimed ignores SIGHUP, SIGTERM and SIGINT; here SIGUSR2 stands for them, as the test process cannot
        // ignore those for a moment without risk.
        let previous = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, previous) }
        #expect(try await run("kill -USR2 $$").ending == .killedBySignal(SIGUSR2))
    }

    @Test func stdinArrivesExactlyAndStdoutIsCollected() async throws {
        // Every byte value, and more than a pipe holds, so that writing and reading must interleave.
        let input = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let outcome = try await CommandRunner.run(
            ["/bin/cat"], environment: [:], input: Data(input), timeout: .seconds(20), outputLimit: 4 << 20)
        #expect(outcome.ending == .exited(status: 0))
        #expect(outcome.output.count == input.count)
        #expect(outcome.output.bytes == input)
    }

    /// A program allowed to print megabytes gets a stdout pipe of `widestOutputPipe` (as root, or below
    /// /proc/sys/fs/pipe-max-size), one allowed less the default pipe, never a smaller one.
    @Test(arguments: [(4 << 20, CommandRunner.widestOutputPipe), (10_000, 65536)])
    func programsThatMayPrintMuchGetAWidePipe(limit: Int, size: Int) async throws {
        // F_GETPIPE_SZ is 1032 on Linux.
        let outcome = try await CommandRunner.run(
            ["/usr/bin/python3", "-c", "import fcntl; print(fcntl.fcntl(1, 1032))"], environment: [:], input: Data(),
            timeout: .seconds(20), outputLimit: limit)
        #expect(outcome.ending == .exited(status: 0))
        #expect(String(decoding: outcome.output.bytes, as: UTF8.self) == "\(size)\n")
    }

    @Test func aProgramThatDoesNotReadItsInputNeitherBlocksNorRaisesSIGPIPE() async throws {
        let outcome = try await run("exit 0", input: [UInt8](repeating: 0x41, count: 1 << 20))
        #expect(outcome.ending == .exited(status: 0))
    }

    @Test func withoutAnOutputLimitStdoutIsDiscarded() async throws {
        let outcome = try await run("head -c 5000000 /dev/zero")
        #expect(outcome.ending == .exited(status: 0))
        #expect(outcome.output.isEmpty)
    }

    @Test func tooMuchOutputKillsIt() async throws {
        let outcome = try await run("while :; do echo spam; done", outputLimit: 10_000)
        #expect(outcome.ending == .printedTooMuch)
        #expect(outcome.output.count > 10_000 && outcome.output.count <= 10_000 + 65536)
    }

    @Test func onlyTheTailOfStderrIsKept() async throws {
        let outcome = try await run("head -c 10000000 /dev/zero | tr '\\0' x >&2; printf END >&2; exit 4")
        #expect(outcome.ending == .exited(status: 4))
        #expect(outcome.standardErrorTail.count == CommandRunner.standardErrorTailLimit)
        #expect(outcome.standardErrorTail == [UInt8](repeating: 0x78, count: 2045) + Array("END".utf8))
    }

    @Test func theProgramGetsExactlyTheEnvironmentGivenAndOnlyStdinStdoutAndStderr() async throws {
        let environment = ["ONE": "1", "QUOTES": #"'"$(x)`"#, "EMPTY": ""]
        let outcome = try await CommandRunner.run(
            ["/usr/bin/env", "-0"], environment: environment, timeout: .seconds(20), outputLimit: 1 << 16)
        let pairs = outcome.output.bytes.split(separator: 0, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(pairs.sorted() == ["EMPTY=", "ONE=1", #"QUOTES='"$(x)`"#])
        let descriptors = try await CommandRunner.run(
            ["/bin/ls", "/proc/self/fd"], environment: [:], timeout: .seconds(20), outputLimit: 1 << 16)
        // ls's own descriptor for the directory it lists is the fourth.
        #expect(String(decoding: descriptors.output.bytes, as: UTF8.self) == "0\n1\n2\n3\n")
    }

    @Test func itLeadsAProcessGroupOfItsOwn() async throws {
        let outcome = try await CommandRunner.run(
            [Self.shell, "-c", "ps -o pgid= -p $$; echo $$"], environment: ["PATH": CommandRunner.defaultPath],
            timeout: .seconds(20), outputLimit: 1 << 16)
        let numbers = String(decoding: outcome.output.bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(numbers)")
        #expect(numbers.first != "\(getpgrp())")
    }

    @Test func argumentsAreNotShellSyntax() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        let marker = directory.path + "/pwned"
        let argument = "$(touch \(marker)); `touch \(marker)` && touch \(marker)"
        let outcome = try await CommandRunner.run(
            ["/usr/bin/printf", "%s", argument], environment: [:], timeout: .seconds(20), outputLimit: 1 << 16)
        #expect(String(decoding: outcome.output.bytes, as: UTF8.self) == argument)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func whatCannotBeStartedIsAnError() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        let notExecutable = try directory.write("data", "#!/bin/sh\n", permissions: 0o644)
        let garbage = try directory.write("garbage", "\u{7F}ELF?", permissions: 0o755)
        await #expect(throws: CommandStartError.emptyCommandLine) {
            try await CommandRunner.run([], environment: [:], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.relativePath("sh")) {
            try await CommandRunner.run(["sh", "-c", "true"], environment: [:], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.system(SystemCallError(call: "execve", errno: Errno(ENOENT)))) {
            try await CommandRunner.run(["/nonexistent/program"], environment: [:], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.system(SystemCallError(call: "execve", errno: Errno(EACCES)))) {
            try await CommandRunner.run([notExecutable], environment: [:], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.system(SystemCallError(call: "execve", errno: Errno(ENOEXEC)))) {
            try await CommandRunner.run([garbage], environment: [:], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.nulByte("environment variable BAD")) {
            try await CommandRunner.run(["/bin/true"], environment: ["BAD": "a\0b"], timeout: .seconds(1))
        }
        await #expect(throws: CommandStartError.nulByte("argument 'a\0b'")) {
            try await CommandRunner.run(["/bin/echo", "a\0b"], environment: [:], timeout: .seconds(1))
        }
    }

    /// A script that starts, in its own process group, a child that ignores SIGTERM, a double-forked grandchild
    /// and a child that closed its output, writes the group's id to `pgid`, and waits.
    static let hangingScript = """
        sh -c 'trap "" TERM; sleep 1000' &
        ( sleep 1000 & ) &
        sleep 1000 >/dev/null 2>&1 </dev/null &
        echo $$ > "$DIR/pgid"
        echo 'still waiting' >&2
        wait
        """

    @Test func aHangingProgramIsKilledAtTheTimeoutWithEverythingItStarted() throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        // Run on this thread, so that the time measured is the run's and not how long a busy test process took to
        // resume an async test.
        let start = ContinuousClock.now
        let outcome = try CommandRunner.runToEnd(
            [Self.shell, "-c", Self.hangingScript],
            environment: ["PATH": CommandRunner.defaultPath, "DIR": directory.path], input: [],
            timeout: .milliseconds(500), workingDirectory: nil, outputLimit: nil)
        let elapsed = ContinuousClock.now - start
        #expect(outcome.ending == .timedOut)
        #expect(outcome.quotedStandardError() == "\"still waiting\"")
        // SIGTERM at 0.5 s; the child that ignores it gets SIGKILL after the grace.
        #expect(elapsed >= .milliseconds(500) && elapsed < .milliseconds(500) + CommandRunner.killGrace + .seconds(5))
        let pgid = try #require(pid_t(try String(contentsOfFile: directory.path + "/pgid", encoding: .utf8).dropLast()))
        #expect(Self.groupIsGone(pgid), "processes of group \(pgid) survived")
        #expect(
            outcome.explanation(timeout: .milliseconds(500))
                == "did not finish within 500ms; killed it and everything it started")
    }

    @Test func aProcessLeftInTheGroupAfterTheExitCountsAsNotFinished() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        let outcome = try await run(
            "sleep 1000 >/dev/null 2>&1 & echo $$ > \"$DIR/pgid\"; exit 0", timeout: .milliseconds(300),
            environment: ["PATH": CommandRunner.defaultPath, "DIR": directory.path])
        #expect(outcome.ending == .timedOut)
        let pgid = try #require(pid_t(try String(contentsOfFile: directory.path + "/pgid", encoding: .utf8).dropLast()))
        #expect(Self.groupIsGone(pgid))
    }

    /// A process that left the group (setsid) holding the program's output: once the program and its group ended,
    /// it is killed and the run ends, rather than waiting for the timeout with it left running.
    @Test func aProcessThatLeftTheGroupHoldingTheOutputGoesWithTheProgram() throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        let start = ContinuousClock.now
        let outcome = try CommandRunner.runToEnd(
            [Self.shell, "-c", "setsid sh -c 'echo $$ > \"$DIR/escaped\"; exec sleep 1000' & sleep 0.2; echo printed"],
            environment: ["PATH": CommandRunner.defaultPath, "DIR": directory.path], input: [],
            timeout: .seconds(20), workingDirectory: nil, outputLimit: 1024)
        #expect(ContinuousClock.now - start < .seconds(10))
        #expect(outcome.ending == .exited(status: 0))
        #expect(String(decoding: outcome.output.bytes, as: UTF8.self) == "printed\n")
        let escaped = try #require(
            pid_t(try String(contentsOfFile: directory.path + "/escaped", encoding: .utf8).dropLast()))
        #expect(waitFor({ kill(escaped, 0) != 0 || Self.isZombie(escaped) }, timeout: 5), "\(escaped) survived")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }

    @Test func aBackgroundProcessThatEndsSoonIsWaitedFor() async throws {
        let start = ContinuousClock.now
        let outcome = try await run("(sleep 0.3; exit 7) >/dev/null 2>&1 & exit 0", timeout: .seconds(20))
        #expect(outcome.ending == .exited(status: 0))
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    @Test func cancellingTheTaskKillsTheGroup() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-runner")
        defer { directory.remove() }
        let script = "sleep 1000 & echo $$ > \"$DIR/pgid\"; wait"
        let environment = ["PATH": CommandRunner.defaultPath, "DIR": directory.path]
        let task = Task { try await run(script, timeout: .seconds(600), environment: environment) }
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.ending == .cancelled)
        // Cancelled before or after the script got as far as writing its group's id.
        if let text = try? String(contentsOfFile: directory.path + "/pgid", encoding: .utf8),
            let pgid = pid_t(text.dropLast())
        {
            #expect(Self.groupIsGone(pgid))
        }
    }

    /// Whether no process of the group is left (`kill(-pgid, 0)` fails with ESRCH), within 5 s: SIGKILL is
    /// delivered asynchronously.
    static func groupIsGone(_ pgid: pid_t) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if kill(-pgid, 0) == -1 && errno == ESRCH { return true }
            usleep(10_000)
        }
        return false
    }

    // MARK: The environment of a delivery

    static func delivery() -> Delivery {
        var notification = ScheduledNotification(id: "exam", title: "Exam: \"Linear\" 'Algebra'", trigger: Trigger())
        notification.body = "Room $(whoami); `id` 🎓"
        notification.info = [(key: "room", value: "4B"), (key: "Kind_2", value: "a=b")]
        var delivery = Delivery(
            notification: notification, fireTime: Date(timeIntervalSince1970: 1_796_112_000.25), missedCount: 2)
        delivery.badge = 3
        return delivery
    }

    @Test func theEnvironmentOfADelivery() {
        let base = [
            "HOME": "/root", "PATH": "/opt/bin", "NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "1",
            "CHIME_STALE": "from chimed's own environment",
        ]
        var delivery = Self.delivery()
        delivery.isSnoozed = true
        delivery.notification.interruptionLevel = .timeSensitive
        delivery.notification.thread = "exams"
        let environment = CommandRunner.environment(for: delivery, backend: "alerts", base: base)
        #expect(
            environment == [
                "HOME": "/root", "PATH": "/opt/bin", "LANG": "C.UTF-8",
                "CHIME_ID": "exam", "CHIME_TITLE": "Exam: \"Linear\" 'Algebra'",
                "CHIME_BODY": "Room $(whoami); `id` 🎓", "CHIME_BACKEND": "alerts",
                "CHIME_FIRE_TIME": "2026-12-01T08:00:00.250000Z", "CHIME_MISSED": "2", "CHIME_BADGE": "3",
                "CHIME_SNOOZED": "1", "CHIME_INTERRUPTION_LEVEL": "time-sensitive", "CHIME_THREAD": "exams",
                "CHIME_INFO_ROOM": "4B", "CHIME_INFO_KIND_2": "a=b",
            ])
        // The JSON line of stdout and webhooks carries it too.
        #expect(
            delivery.json(deliveredAt: delivery.fireTime, backend: "alerts").serialized.hasSuffix(
                #","missed":2,"badge":3,"interruption_level":"time-sensitive","thread":"exams"}"#))
    }

    @Test func aPlainDeliveryHasAnEmptyBodyAndNoBadgeOrMissedCount() {
        let notification = ScheduledNotification(id: "tea", title: "Tea", trigger: Trigger())
        let delivery = Delivery(notification: notification, fireTime: Date(timeIntervalSince1970: 0))
        let environment = CommandRunner.environment(for: delivery, backend: "command", base: ["LANG": "de_DE.UTF-8"])
        #expect(
            environment == [
                "PATH": CommandRunner.defaultPath, "LANG": "de_DE.UTF-8", "CHIME_ID": "tea", "CHIME_TITLE": "Tea",
                "CHIME_BODY": "", "CHIME_BACKEND": "command", "CHIME_FIRE_TIME": "1970-01-01T00:00:00.000000Z",
            ])
    }
}
