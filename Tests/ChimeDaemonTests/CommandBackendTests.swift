import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `CommandBackend` running real scripts: what they receive, and how a failure is reported.
@Suite struct CommandBackendTests {
    /// Answers nobody: a command backend has no actions to report.
    struct NoResponder: NotificationResponding {
        func actionInvoked(_ key: String, delivery: Delivery, backend: String) {}
        func closed(_ delivery: Delivery, reason: UInt32, backend: String) {}
    }

    static let deliveredAt = Date(timeIntervalSince1970: 1_796_112_001.5)

    func backend(
        _ argv: [String], name: String = "command", timeout: Duration = .seconds(20), environment: [String: String]
    ) -> CommandBackend {
        var settings = CommandSettings()
        settings.name = name
        settings.argv = argv
        settings.timeout = timeout
        let context = BackendContext(
            log: RecordingEventLog(), clock: ManualClock(Self.deliveredAt), responder: NoResponder(),
            environment: environment)
        return CommandBackend(settings: settings, context: context)
    }

    func error(of backend: CommandBackend, _ delivery: Delivery = CommandRunnerTests.delivery()) async -> String? {
        do {
            try await backend.deliver(delivery, deliveredAt: Self.deliveredAt)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func theProgramGetsTheNotificationInItsEnvironmentAndAsJSONOnStdin() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-command")
        defer { directory.remove() }
        let script = try directory.write(
            "record", "#!/bin/sh\ncat > \"$OUT/stdin\"\nenv -0 > \"$OUT/env\"\nprintf '%s' \"$#\" > \"$OUT/argc\"\n",
            permissions: 0o755)
        let marker = directory.path + "/pwned"
        var delivery = CommandRunnerTests.delivery()
        let hostile = "'\"$(touch \(marker))`touch \(marker)`; touch \(marker) \u{1}\u{7F}\t🎉 \\n"
        delivery.notification.title = hostile
        delivery.notification.body = hostile
        delivery.notification.info = [(key: "note", value: hostile)]
        let command = backend([script, "--flag"], name: "alerts", environment: ["OUT": directory.path])
        try await command.deliver(delivery, deliveredAt: Self.deliveredAt)
        let stdin = try Data(contentsOf: directory.url.appendingPathComponent("stdin"))
        let line = delivery.json(deliveredAt: Self.deliveredAt, backend: "alerts").serialized
        #expect(String(decoding: stdin, as: UTF8.self) == line + "\n")
        #expect(line.contains(#""backend":"alerts""#))
        let variables = try Data(contentsOf: directory.url.appendingPathComponent("env"))
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        let environment = Dictionary(
            variables.map { ($0.prefix { $0 != "=" }, String($0.drop { $0 != "=" }.dropFirst())) }
        ) { first, _ in first }
        #expect(environment["CHIME_TITLE"] == hostile)
        #expect(environment["CHIME_BODY"] == hostile)
        #expect(environment["CHIME_INFO_NOTE"] == hostile)
        #expect(environment["CHIME_BACKEND"] == "alerts")
        #expect(environment["OUT"] == directory.path)
        #expect(try String(contentsOfFile: directory.path + "/argc", encoding: .utf8) == "1")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func aFailingProgramIsReportedWithItsExitStatusAndTheEndOfItsStderr() async throws {
        let directory = try TemporaryDirectory(prefix: "chime-command")
        defer { directory.remove() }
        let lines = (1...12).map { "echo 'problem \($0)' >&2" }.joined(separator: "\n")
        let script = try directory.write("fail", "#!/bin/sh\n\(lines)\nexit 3\n", permissions: 0o755)
        let reason = await error(of: backend([script], environment: [:]))
        let quoted = (3...12).map { "problem \($0)" }.joined(separator: " / ")
        #expect(reason == "\(script) exited with status 3 (stderr: \"\(quoted)\")")
    }

    @Test func aProgramKilledByASignalIsReported() async throws {
        let reason = await error(of: backend(["/bin/sh", "-c", "kill -KILL $$"], environment: [:]))
        #expect(reason == "/bin/sh was killed by signal 9 (Killed)")
    }

    @Test func aHangingProgramIsKilledAtTimeoutSec() async throws {
        let command = backend(
            ["/bin/sh", "-c", "echo 'waiting for the server' >&2; sleep 1000 & wait"], timeout: .milliseconds(300),
            environment: ["PATH": CommandRunner.defaultPath])
        let reason = await error(of: command)
        #expect(
            reason
                == "/bin/sh did not finish within 300ms; killed it and everything it started "
                + "(stderr: \"waiting for the server\")")
    }

    @Test func withoutExecEveryDeliveryFailsSayingWhatToSet() async throws {
        #expect(
            await error(of: backend([], environment: [:]))
                == "nothing to run: set Exec= in [Command] of chimed.conf")
        #expect(
            await error(of: backend([], name: "pager", environment: [:]))
                == "nothing to run: set Exec= in [Command] of chimed.conf (the one with Name=pager)")
    }

    @Test func aProgramThatCannotStartIsReported() async throws {
        #expect(
            await error(of: backend(["/nonexistent/notify"], environment: [:]))
                == "cannot start /nonexistent/notify: posix_spawn: No such file or directory")
    }

    @Test func theDispatcherWaitsLongerThanTheRunnerTakesToKill() {
        let command = backend(["/bin/true"], timeout: .seconds(30), environment: [:])
        #expect(command.timeout == .seconds(35))
        #expect(command.timeout! > .seconds(30) + CommandRunner.killGrace)
    }
}
