import ChimeTestSupport
import Foundation
import Testing

/// chimed follows logind's `PrepareForSleep` on the system bus: a stand-in logind (Tests/Fixtures/dbus-fixture.py
/// login-manager) on a private bus given as the system bus.
@Suite(.serialized) struct ChimedSleepTests {
    static var unmetRequirement: String? {
        if PrivateSessionBus.daemonPath == nil { return "dbus-daemon is not installed" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/busctl") { return "busctl is not installed" }
        return DBusFixture.unavailableReason
    }

    @Test(.enabled(if: unmetRequirement == nil, "skipped: \(unmetRequirement ?? "")"))
    func suspendAndResumeAreFollowedAndOnlyLogindIsBelieved() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-sleep")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let logind = try DBusFixture("login-manager", bus: bus, directory: directory)
        defer { logind.stop() }
        try directory.write("etc/later.notification", "[Notification]\nTitle=Later\n[Trigger]\nOnCalendar=hourly\n")
        let notify = try NotifySocket(directory: directory.path)
        let chimed = try RunningProcess(
            BinaryLocator.path(of: "chimed"),
            [
                "--config-dir=\(directory.path)/etc", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run", "--deliver=stdout",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "TZ": "UTC"])
        defer { chimed.wait(timeout: 0) }
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        func busctl(_ arguments: [String]) throws {
            let run = try ProcessRunner.run("/usr/bin/busctl", ["--address=\(bus.address)"] + arguments)
            #expect(run.status == 0, "busctl \(arguments): \(run.standardError)")
        }
        func prepareForSleep(_ sleeping: Bool) throws {
            try busctl([
                "call", "org.freedesktop.login1", "/org/chime/Test", "org.chime.Test.Control", "EmitPrepareForSleep",
                "b", sleeping ? "true" : "false",
            ])
        }
        // The match is installed once the first schedule is in; a resume from logind is the witness that it is.
        #expect(
            waitFor({ (try? prepareForSleep(false)) != nil && chimed.standardError.contains("resumed") }, timeout: 10))
        // The same signal from a program that is not logind changes nothing.
        try busctl([
            "emit", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", "true",
        ])
        try prepareForSleep(false)
        #expect(waitFor({ chimed.standardError.components(separatedBy: "The system resumed").count == 3 }, timeout: 10))
        #expect(!chimed.standardError.contains("going to sleep"), "\(chimed.standardError)")

        try prepareForSleep(true)
        #expect(waitFor({ chimed.standardError.contains("The system is going to sleep at ") }, timeout: 10))
        usleep(1_200_000)
        try prepareForSleep(false)
        #expect(
            waitFor({ chimed.standardError.contains("The system resumed after sleeping 1s;") }, timeout: 10),
            "\(chimed.standardError)")
        chimed.signal(SIGTERM)
        #expect(chimed.wait(timeout: 10) == 0)
    }
}
