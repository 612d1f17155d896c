import ChimeTestSupport
import Foundation
import Testing

/// One chimed per state and runtime directory: a second one is refused and leaves the first, its PID file and
/// `chimectl` alone; the locks go with the process, however it ends.
@Suite(.serialized) struct ChimedSingleInstanceTests {
    let chimed = BinaryLocator.path(of: "chimed")
    let chimectl = BinaryLocator.path(of: "chimectl")

    static let tick = "[Notification]\nTitle=Tick\n[Trigger]\nOnCalendar=*:*:*\n"

    func arguments(_ directory: TemporaryDirectory, state: String = "state", runtime: String = "run") -> [String] {
        [
            "--config-dir=\(directory.path)/config", "--state-dir=\(directory.path)/\(state)",
            "--runtime-dir=\(directory.path)/\(runtime)", "--deliver=stdout",
        ]
    }

    /// Starts chimed and waits for `READY=1`.
    func start(_ directory: TemporaryDirectory, _ notify: NotifySocket) throws -> RunningProcess {
        let process = try RunningProcess(
            chimed, arguments(directory), environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC"])
        let messages = notify.receive(until: { $0.contains("READY=1") }, timeout: 10)
        try #require(messages.last?.contains("READY=1") == true, "\(process.standardError)")
        return process
    }

    /// Runs a second chimed that must refuse to start; returns its standard error.
    func refusedStart(_ arguments: [String]) throws -> String {
        let second = try RunningProcess(chimed, arguments, environment: ["TZ": "UTC"])
        let status = second.wait(timeout: 10)
        #expect(status == 1, "the second chimed still ran: \(second.standardOutput)")
        #expect(second.standardOutput.isEmpty)
        return second.standardError
    }

    @Test func aSecondChimedIsRefusedAndTheFirstKeepsItsPIDFile() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-lock")
        defer { directory.remove() }
        try directory.write("config/tick.notification", Self.tick)
        let notify = try NotifySocket(directory: directory.path)
        let first = try start(directory, notify)
        let pidPath = directory.path + "/run/chimed.pid"

        let same = try refusedStart(arguments(directory))
        #expect(
            same.contains("chimed: another chimed (pid \(first.pid)) is already running on \(directory.path)/state;"),
            "\(same)")
        let sameState = try refusedStart(arguments(directory, runtime: "run2"))
        #expect(sameState.contains("(pid \(first.pid)) is already running on \(directory.path)/state;"))
        let sameRuntime = try refusedStart(arguments(directory, state: "state2"))
        #expect(sameRuntime.contains("(pid \(first.pid)) is already running on \(directory.path)/run;"))

        #expect(try String(contentsOfFile: pidPath, encoding: .utf8) == "\(first.pid)\n")
        let status = try ProcessRunner.run(chimectl, ["status", "--runtime-dir=\(directory.path)/run"])
        #expect(status.status == 0)
        #expect(status.standardOutput.contains("running (pid \(first.pid))"))
        let reload = try ProcessRunner.run(chimectl, ["reload", "--runtime-dir=\(directory.path)/run"])
        #expect(reload.status == 0, "\(reload.standardError)")

        first.signal(SIGTERM)
        #expect(first.wait(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: pidPath))
        // Each second delivered once: the refused ones delivered nothing.
        let fireTimes = first.standardOutput.split(separator: "\n").filter { $0.contains(#""id":"tick""#) }
        #expect(Set(fireTimes).count == fireTimes.count)
    }

    @Test func theLocksGoWithTheProcessEvenWhenItIsKilled() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-lock")
        defer { directory.remove() }
        try directory.write("config/tick.notification", Self.tick)
        let notify = try NotifySocket(directory: directory.path)
        let killed = try start(directory, notify)
        killed.signal(SIGKILL)
        _ = killed.wait(timeout: 10)
        // The PID file and the lock file are left behind, and do not stand in the next one's way.
        #expect(FileManager.default.fileExists(atPath: directory.path + "/run/chimed.pid"))
        let next = try start(directory, notify)
        #expect(
            try String(contentsOfFile: directory.path + "/run/chimed.pid", encoding: .utf8) == "\(next.pid)\n")
        #expect(
            try String(contentsOfFile: directory.path + "/state/chimed.lock", encoding: .utf8) == "\(next.pid)\n")
        next.signal(SIGTERM)
        #expect(next.wait(timeout: 10) == 0)
    }
}
