import ChimeTestSupport
import Foundation
import Testing

/// chimed and the machine's sleep: it follows logind's `PrepareForSleep` on the system bus and holds logind's delay
/// inhibitor while a delivery with `WakeSystem=yes` is in flight (a stand-in logind, Tests/Fixtures/dbus-fixture.py
/// login-manager, on a private bus given as the system bus), and arms its alarm timer only with CAP_WAKE_ALARM.
@Suite(.serialized) struct ChimedPowerTests {
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
        // On a busy machine more than one of the witnesses may have been sent before the first was seen: counted
        // once none has come for half a second.
        func resumes() -> Int { chimed.standardError.components(separatedBy: "The system resumed").count - 1 }
        var witnessed = resumes()
        while true {
            usleep(500_000)
            guard resumes() != witnessed else { break }
            witnessed = resumes()
        }
        // The same signal from a program that is not logind changes nothing.
        try busctl([
            "emit", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", "true",
        ])
        try prepareForSleep(false)
        #expect(waitFor({ resumes() == witnessed + 1 }, timeout: 10), "\(chimed.standardError)")
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

    /// The alarm timer needs CAP_WAKE_ALARM, which root has.
    static var unmetForWaking: String? {
        getuid() != 0 ? "needs root, for CAP_WAKE_ALARM" : unmetRequirement
    }

    @Test(.enabled(if: unmetForWaking == nil, "skipped: \(unmetForWaking ?? "")"))
    func aWakingDeliveryArmsTheAlarmAndHoldsLogindsDelayInhibitorUntilItsCommandIsDone() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-wake")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let logind = try DBusFixture("login-manager", bus: bus, directory: directory)
        defer { logind.stop() }
        try directory.write(
            "etc/chimed.conf", "[Command]\nName=slow\nExec=/bin/sh -c 'sleep 1; touch \(directory.path)/done'\n")
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 2
        try directory.write(
            "etc/wake.notification",
            "[Notification]\nTitle=Wake\nDeliver=slow\n[Trigger]\nAt=@\(due)\nWakeSystem=yes\n")
        let notify = try NotifySocket(directory: directory.path)
        let chimed = try RunningProcess(
            BinaryLocator.path(of: "chimed"),
            [
                "--config-dir=\(directory.path)/etc", "--state-dir=\(directory.path)/state",
                "--runtime-dir=\(directory.path)/run",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "TZ": "UTC"])
        defer { chimed.wait(timeout: 0) }
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        // One timerfd on CLOCK_REALTIME_ALARM (clock id 8), armed.
        let fdinfo = "/proc/\(chimed.pid)/fdinfo"
        let alarms = try FileManager.default.contentsOfDirectory(atPath: fdinfo).compactMap { name in
            try? String(contentsOfFile: "\(fdinfo)/\(name)", encoding: .utf8)
        }.filter { $0.contains("\nclockid: 8\n") }
        #expect(alarms.count == 1)
        #expect(alarms.first?.contains("it_value: (0, 0)") == false, "\(alarms)")

        func records() -> [[String: Any]] {
            ((try? String(contentsOfFile: logind.recordPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap
            {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        #expect(
            waitFor({ records().contains { $0["event"] as? String == "released" } }, timeout: 15),
            "\(chimed.standardError)")
        let inhibit = try #require(records().first { $0["method"] as? String == "Inhibit" })
        #expect(inhibit["what"] as? String == "sleep")
        #expect(inhibit["who"] as? String == "chime")
        #expect(inhibit["why"] as? String == "Delivering wake (WakeSystem=yes)")
        #expect(inhibit["mode"] as? String == "delay")
        // Held from the delivery until the command was done: it slept a second.
        let released = try #require(records().first { $0["event"] as? String == "released" })
        let held = (released["time"] as? Double ?? 0) - (inhibit["time"] as? Double ?? 0)
        #expect(held >= 0.9, "held \(held) s")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/done"))
        chimed.signal(SIGTERM)
        #expect(chimed.wait(timeout: 10) == 0)
    }

    @Test(
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "skipped: needs root and setpriv"))
    func withoutCapWakeAlarmWakeSystemIsAnErrorThatSaysWhatToGrant() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-nowake")
        defer { directory.remove() }
        try directory.write(
            "etc/alarm.notification", "[Notification]\nTitle=Alarm\n[Trigger]\nOnCalendar=06:30\nWakeSystem=yes\n")
        let check = try ProcessRunner.run(
            "/usr/bin/setpriv",
            [
                "--bounding-set=-wake_alarm", BinaryLocator.path(of: "chimed"), "--check",
                "--config-dir=\(directory.path)/etc",
            ])
        #expect(check.status == 1)
        #expect(
            check.standardError.contains(
                "\(directory.path)/etc/alarm.notification:5:12: WakeSystem=yes cannot be honoured: chimed lacks the "
                    + "capability CAP_WAKE_ALARM (timerfd_create(CLOCK_REALTIME_ALARM): Operation not permitted). Grant "
                    + "it with AmbientCapabilities=CAP_WAKE_ALARM and CapabilityBoundingSet=CAP_WAKE_ALARM, as "
                    + "chimed.service does."), "\(check.standardError)")
        // With it (root has it), the same file is fine.
        let allowed = try ProcessRunner.run(
            BinaryLocator.path(of: "chimed"), ["--check", "--config-dir=\(directory.path)/etc"])
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// The seconds to which the one CLOCK_REALTIME_ALARM timerfd of process `pid` is armed, or `nil`.
    static func alarmSeconds(of pid: pid_t) -> Int? {
        let fdinfo = "/proc/\(pid)/fdinfo"
        let alarms = ((try? FileManager.default.contentsOfDirectory(atPath: fdinfo)) ?? []).compactMap { name in
            try? String(contentsOfFile: "\(fdinfo)/\(name)", encoding: .utf8)
        }.filter { $0.contains("\nclockid: 8\n") }
        guard alarms.count == 1,
            let line = alarms[0].split(separator: "\n").first(where: { $0.hasPrefix("it_value: (") })
        else { return nil }
        let seconds = Int(line.dropFirst("it_value: (".count).prefix { $0.isNumber }) ?? 0
        return line == "it_value: (0, 0)" ? nil : seconds
    }

    @Test(
        .enabled(
            if: unmetForWaking == nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "skipped: \(unmetForWaking ?? "needs setpriv")"))
    func aUsersInstanceAsksTheSystemInstanceToWakeTheSystemOneWakeUpPerUser() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-wake-user")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let notify = try NotifySocket(directory: directory.path)
        func startSystem() throws -> RunningProcess {
            while notify.receive(timeout: 0) != nil {}
            let chimed = try RunningProcess(
                BinaryLocator.path(of: "chimed"),
                [
                    "--config-dir=\(directory.path)/etc", "--state-dir=\(directory.path)/state",
                    "--runtime-dir=\(directory.path)/run",
                ],
                environment: ["NOTIFY_SOCKET": notify.path, "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "TZ": "UTC"])
            try #require(
                notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)
            let owned = waitFor(
                {
                    (try? ProcessRunner.run(
                        "/usr/bin/busctl", ["--address=\(bus.address)", "status", "org.chime.Notifications1"]))?.status
                        == 0
                }, timeout: 10)
            try #require(owned, "\(chimed.standardError)")
            return chimed
        }
        try FileManager.default.createDirectory(atPath: directory.path + "/etc", withIntermediateDirectories: true)
        var system = try startSystem()
        #expect(Self.alarmSeconds(of: system.pid) == nil)

        // A user's instance without CAP_WAKE_ALARM: its WakeSystem=yes notification, an hour ahead, becomes the
        // system instance's alarm.
        let wakeAt = Int(Date().timeIntervalSince1970) + 3600
        try directory.write(
            "home/config/chime/wake.notification",
            "[Notification]\nTitle=Wake\nDeliver=stdout\n[Trigger]\nAt=@\(wakeAt)\nWakeSystem=yes\n")
        let user = try RunningProcess(
            "/usr/bin/setpriv", ["--bounding-set=-wake_alarm", BinaryLocator.path(of: "chimed"), "--user"],
            environment: [
                "XDG_CONFIG_HOME": directory.path + "/home/config", "XDG_STATE_HOME": directory.path + "/home/state",
                "XDG_RUNTIME_DIR": directory.path + "/home/run", "DBUS_SYSTEM_BUS_ADDRESS": bus.address, "TZ": "UTC",
            ])
        let requests = directory.path + "/state/wake-requests.json"
        func kept() -> String { (try? String(contentsOfFile: requests, encoding: .utf8)) ?? "" }
        #expect(
            waitFor({ kept().contains(#"{"uid":0,"due_usec":\#(wakeAt)000000}"#) }, timeout: 10),
            "\(kept()); chimed --user: \(user.standardError)")
        #expect((3590...3600).contains(Self.alarmSeconds(of: system.pid) ?? 0))
        user.signal(SIGTERM)
        #expect(user.wait(timeout: 10) == 0)

        func setWakeAlarm(_ microseconds: Int64) throws -> ProcessRunner.Output {
            try ProcessRunner.run(
                "/usr/bin/busctl",
                [
                    "--address=\(bus.address)", "call", "org.chime.Notifications1", "/org/chime/Wake1",
                    "org.chime.Wake1",
                    "SetWakeAlarm", "x", String(microseconds),
                ])
        }
        // Two years ahead is refused; a new time replaces the user's one, and is kept across a restart.
        let tooFar = try setWakeAlarm((Int64(wakeAt) + 2 * 366 * 86_400) * 1_000_000)
        #expect(tooFar.status != 0)
        #expect(tooFar.standardError.contains("at most a year ahead"), "\(tooFar.standardError)")
        let later = Int64(Date().timeIntervalSince1970) + 7200
        #expect(try setWakeAlarm(later * 1_000_000).status == 0)
        #expect(kept().contains(#"[{"uid":0,"due_usec":\#(later)000000}]"#), "\(kept())")
        system.signal(SIGTERM)
        #expect(system.wait(timeout: 10) == 0)
        system = try startSystem()
        #expect((7190...7200).contains(Self.alarmSeconds(of: system.pid) ?? 0))
        // 0 withdraws it: nothing is kept. (Whether the alarm is disarmed cannot be read here: the kernel reports a
        // cancelled CLOCK_REALTIME_ALARM timerfd with its old expiry in fdinfo and timerfd_gettime; SchedulerWakeTests
        // check that it is cancelled.)
        #expect(try setWakeAlarm(0).status == 0)
        #expect(waitFor({ !kept().contains(#""uid":0"#) }, timeout: 5), "\(kept())")
        system.signal(SIGTERM)
        #expect(system.wait(timeout: 10) == 0)
    }
}
