import ChimeCore
import ChimeDaemonTestSupport
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
        // One line of JSON, read back with Foundation's parser: the members the documentation names, in its order.
        let stdin = String(decoding: try Data(contentsOf: directory.url.appendingPathComponent("stdin")), as: UTF8.self)
        #expect(stdin.hasSuffix("}\n") && stdin.filter { $0 == "\n" }.count == 1, "\(stdin)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stdin.utf8)) as? [String: Any])
        #expect(object["id"] as? String == "exam")
        #expect(object["title"] as? String == hostile)
        #expect(object["body"] as? String == hostile)
        #expect(object["info"] as? [String: String] == ["note": hostile])
        #expect(object["fire_time"] as? String == "2026-12-01T08:00:00.250000Z")
        #expect(object["delivered_at"] as? String == "2026-12-01T08:00:01.500000Z")
        #expect(object["backend"] as? String == "alerts")
        #expect(object["missed"] as? Int == 2)
        #expect(object["badge"] as? Int == 3)
        #expect(object.count == 9)
        let order = ["id", "title", "body", "info", "fire_time", "delivered_at", "backend", "missed", "badge"]
        let positions = order.compactMap { stdin.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == order.count && positions == positions.sorted(), "\(stdin)")
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
                == "cannot start /nonexistent/notify: execve: No such file or directory")
    }

    @Test func theDispatcherWaitsLongerThanTheRunnerTakesToKill() {
        let command = backend(["/bin/true"], timeout: .seconds(30), environment: [:])
        #expect(command.timeout == .seconds(35))
        #expect(command.timeout! > .seconds(30) + CommandRunner.killGrace)
    }
}
