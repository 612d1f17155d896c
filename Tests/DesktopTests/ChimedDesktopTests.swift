import ChimeDaemonTestSupport
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed` delivering to the desktop on a private session bus: the bubble's arguments, and `snooze`
/// chosen on it bringing it back `SnoozeSec=` later.
@Suite(
    .serialized,
    .enabled(if: desktopTestsUnmetRequirement == nil, "skipped: \(desktopTestsUnmetRequirement ?? "")"))
struct ChimedDesktopTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// chimed's directories under `directory`.
    static func arguments(_ directory: TemporaryDirectory) -> [String] {
        [
            "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
            "--state-dir=\(directory.path)/state",
        ]
    }

    /// chimed on the configuration in DIRECTORY/config and the private `bus`, once it said READY=1.
    func startChimed(
        in directory: TemporaryDirectory, bus: PrivateSessionBus, zone: String, environment: [String: String] = [:],
        arguments: [String] = []
    ) throws -> (RunningProcess, NotifySocket) {
        let notify = try NotifySocket(directory: directory.path)
        try FileManager.default.createDirectory(atPath: directory.path + "/config", withIntermediateDirectories: true)
        let process = try RunningProcess(
            chimed, Self.arguments(directory) + arguments,
            environment: environment.merging(
                ["NOTIFY_SOCKET": notify.path, "TZ": zone, "DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true
        if !ready { process.wait(timeout: 0) }
        try #require(ready, "chimed did not start: \(process.standardError)")
        return (process, notify)
    }

    /// The `Notify` calls the recording server got, once there are `count` of them (or after 20 s).
    static func notifyCalls(_ server: DBusFixture, _ count: Int) -> [[String: Any]] {
        server.waitForRecords(timeout: .seconds(20)) { records in
            records.filter { $0["method"] as? String == "Notify" }.count >= count
        }.filter { $0["method"] as? String == "Notify" }
    }

    /// The bubbles of recorded `Notify` calls by their summary: the server's id of each.
    static func bubbles(_ calls: [[String: Any]]) -> [String: Int] {
        Dictionary(
            calls.compactMap { call in
                (call["summary"] as? String).flatMap { summary in (call["id"] as? Int).map { (summary, $0) } }
            }, uniquingKeysWith: { _, latest in latest })
    }

    /// Calls `member` of the recording server's control interface (`org.chime.Test.Control`).
    static func control(
        _ member: String, bus: PrivateSessionBus, arguments: @escaping @Sendable (inout BusMessageWriter) throws -> Void
    ) async throws {
        try await DBusFixture.control(member, bus: bus, arguments: arguments)
    }

    /// Has the recording server close `bubble` and emit `NotificationClosed` with `reason` (2: the user closed it).
    static func close(_ bubble: Int, reason: UInt32, bus: PrivateSessionBus) async throws {
        try await control("EmitNotificationClosed", bus: bus) { writer in
            try writer.append(.uint32(UInt32(bubble)))
            try writer.append(.uint32(reason))
        }
    }

    /// Has the recording server emit `ActionInvoked` for `bubble`, as a user choosing `key` would.
    static func choose(_ key: String, on bubble: Int, bus: PrivateSessionBus) async throws {
        try await control("EmitActionInvoked", bus: bus) { writer in
            try writer.append(.uint32(UInt32(bubble)))
            try writer.append(key)
        }
    }

    @Test func aSnoozedBubbleComesBackAfterSnoozeSec() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-desktop")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=actions,body"])
        defer { server.stop() }
        try FileManager.default.createDirectory(atPath: directory.path + "/config", withIntermediateDirectories: true)
        let (process, notify) = try startChimed(in: directory, bus: bus, zone: "Europe/Berlin")
        defer { process.wait(timeout: 0) }

        // Added once chimed runs, three seconds ahead: a start-up slowed by a loaded machine cannot make it past.
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write(
            "config/exam.notification",
            """
            [Notification]
            Title=Exam: Linear Algebra
            Body=Room 4B <east>
            Action=snooze:Snooze
            Action=open:Open
            SnoozeSec=2s
            Deliver=desktop
            [Trigger]
            At=@\(due)
            """)
        process.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        let first = try #require(Self.notifyCalls(server, 1).first, "no Notify; chimed: \(process.standardError)")
        #expect(first["app_name"] as? String == "chime")
        #expect(first["replaces_id"] as? Int == 0)
        #expect(first["summary"] as? String == "Exam: Linear Algebra")
        #expect(first["body"] as? String == "Room 4B <east>")
        #expect(first["actions"] as? [String] == ["snooze", "Snooze", "open", "Open"])
        #expect(first["expire_timeout"] as? Int == -1)
        #expect(DesktopBackendTests.hints(first) == ["urgency": "y 1", "desktop-entry": "s chime"])
        let firstTime = try #require(first["time"] as? Double)
        #expect(firstTime >= Double(due) - 0.01)

        let bubble = try #require(first["id"] as? Int)
        let chosen = Date().timeIntervalSince1970
        try await Self.choose("snooze", on: bubble, bus: bus)

        let calls = Self.notifyCalls(server, 2)
        try #require(calls.count == 2, "no second Notify; chimed: \(process.standardError)")
        let again = calls[1]
        #expect(again["summary"] as? String == "Exam: Linear Algebra")
        // The snoozed bubble replaces the one still on screen.
        #expect(again["replaces_id"] as? Int == bubble)
        let delay = try #require(again["time"] as? Double) - chosen
        #expect(delay >= 1.9 && delay < 8, "snoozed for \(delay) s")

        // Snoozed again, then chimed restarts: the snooze was kept, and comes once.
        try await Self.choose("snooze", on: try #require(again["id"] as? Int), bus: bus)
        #expect(waitFor({ process.standardError.components(separatedBy: "snoozed until").count == 3 }, timeout: 10))
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
        let restarted = try RunningProcess(
            chimed, Self.arguments(directory),
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "Europe/Berlin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { restarted.wait(timeout: 0) }
        let afterRestart = Self.notifyCalls(server, 3)
        try #require(afterRestart.count == 3, "the snooze did not survive the restart: \(restarted.standardError)")
        #expect(afterRestart[2]["summary"] as? String == "Exam: Linear Algebra")
        restarted.signal(SIGTERM)
        #expect(restarted.wait(timeout: 10) == 0)
    }

    /// An action with `ExecAction=` runs its program with the notification and `CHIME_ACTION=` in its environment;
    /// `Badge=+1` twice and `chimectl badge clear` reach the launcher as counts 1, 2 and 0.
    @Test func anActionRunsItsCommandAndTheBadgeReachesTheLauncher() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-desktop")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=actions,body"])
        defer { server.stop() }
        let launcher = try DBusFixture(
            "record-signals", bus: bus, directory: directory,
            arguments: ["--match=type='signal',interface='com.canonical.Unity.LauncherEntry'"])
        defer { launcher.stop() }
        let output = directory.path + "/action"
        try directory.write(
            // Both files whole before the second appears: the test waits for that one.
            "config/record-action",
            "#!/bin/sh\n/usr/bin/env > \"$1.env\"\n/bin/cat > \"$1.part\"\nexec mv \"$1.part\" \"$1.json\"\n",
            permissions: 0o755)
        try directory.write("config/chimed.conf", "[Desktop]\nDesktopEntry=org.example.Chime\n")
        let (process, notify) = try startChimed(in: directory, bus: bus, zone: "UTC")
        defer { process.wait(timeout: 0) }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write(
            "config/tea.notification",
            """
            [Notification]
            Title=Tea's ready
            Body=Green, "not" $(black)
            Badge=+1
            Action=open:Open
            ExecAction=open:\(directory.path)/config/record-action \(output)
            Deliver=desktop
            [Trigger]
            At=@\(due)
            At=@\(due + 1)
            """)
        process.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        let calls = Self.notifyCalls(server, 2)
        try #require(calls.count == 2, "chimed: \(process.standardError)")
        let bubble = try #require(calls[1]["id"] as? Int)
        try await Self.choose("open", on: bubble, bus: bus)
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: output + ".json") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let environment = try String(contentsOfFile: output + ".env", encoding: .utf8).split(separator: "\n")
        #expect(environment.contains("CHIME_ACTION=open"))
        #expect(environment.contains("CHIME_ID=tea"))
        #expect(environment.contains("CHIME_TITLE=Tea's ready"))
        #expect(environment.contains(#"CHIME_BODY=Green, "not" $(black)"#))
        #expect(environment.contains("CHIME_BACKEND=desktop"))
        let json = try String(contentsOfFile: output + ".json", encoding: .utf8)
        #expect(json.hasPrefix(#"{"id":"tea","title":"Tea's ready","body":"Green, \"not\" $(black)""#), "\(json)")

        // chimectl badge clear asks the running chimed, which publishes the cleared count.
        let chimectl = BinaryLocator.path(of: "chimectl")
        let clear = try ProcessRunner.run(
            chimectl, ["badge", "clear"] + Self.arguments(directory), environment: ["TZ": "UTC"])
        #expect(clear.status == 0, "\(clear.standardError)")
        let signals = launcher.waitForRecords(timeout: .seconds(20)) { $0.count >= 3 }
        let counts = signals.map { record -> String in
            let arguments = record["arguments"] as? [[String: Any]] ?? []
            let properties = (arguments.last?["value"] as? [String: Any] ?? [:]).mapValues(DesktopBackendTests.typed)
            return "\(properties["count"] ?? "?") \(properties["count-visible"] ?? "?")"
        }
        #expect(counts == ["x 1 b true", "x 2 b true", "x 0 b false"], "chimed: \(process.standardError)")
        #expect(
            signals.allSatisfy {
                $0["path"] as? String == "/com/canonical/unity/launcherentry/org_2eexample_2eChime"
            })

        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }
}

/// The desktop's do-not-disturb as a notification server announces it: its `Inhibited` property (KDE Plasma's).
@Suite(
    .serialized,
    .enabled(if: desktopTestsUnmetRequirement == nil, "skipped: \(desktopTestsUnmetRequirement ?? "")"))
struct DesktopDoNotDisturbTests {
    static func setInhibited(_ inhibited: Bool, bus: PrivateSessionBus) async throws {
        try await ChimedDesktopTests.control("SetInhibited", bus: bus) { try $0.append(.boolean(inhibited)) }
    }

    static func summaries(_ server: DBusFixture) -> [String] {
        server.records.filter { $0["method"] as? String == "Notify" }.compactMap { $0["summary"] as? String }
    }

    @Test func anInhibitedServerHoldsWhatMayNotInterruptUntilItIsNoLonger() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-inhibited")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=body", "--inhibited"])
        defer { server.stop() }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        for (id, level) in [("Tea", "active"), ("Pager", "critical")] {
            try directory.write(
                "config/\(id).notification",
                "[Notification]\nTitle=\(id)\nInterruptionLevel=\(level)\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        }
        let (process, _) = try ChimedDesktopTests().startChimed(in: directory, bus: bus, zone: "Europe/Berlin")
        defer {
            process.signal(SIGTERM)
            process.wait(timeout: 10)
        }

        // Read at the start: inhibited. The critical one comes, the other is held.
        server.waitForRecords { _ in Self.summaries(server) == ["Pager"] }
        #expect(
            waitFor(
                {
                    process.standardError.contains(
                        "Tea: Tea (held while quiet: do-not-disturb (the notification server))")
                },
                timeout: 10), "\(process.standardError)")
        #expect(Self.summaries(server) == ["Pager"])

        // The property changes: what was held comes at once.
        try await Self.setInhibited(false, bus: bus)
        server.waitForRecords { _ in Self.summaries(server).count == 2 }
        #expect(Self.summaries(server) == ["Pager", "Tea"], "\(process.standardError)")
        #expect(process.standardError.contains("Quiet ended; releasing 1 held delivery(ies)."))

        // And back on: quiet again, said once.
        try await Self.setInhibited(true, bus: bus)
        #expect(
            waitFor(
                {
                    process.standardError.components(separatedBy: "Quiet (do-not-disturb (the notification server))")
                        .count == 3
                },
                timeout: 10), "\(process.standardError)")
    }

    /// The switch turned on while chimed's first read of it is on its way: the change, announced first, wins over
    /// the read's stale answer.
    @Test func aChangeAnnouncedDuringTheFirstReadIsNotUndoneByIt() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-inhibited-race")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory,
            arguments: ["--capabilities=body", "--inhibit-during-get"])
        defer { server.stop() }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 2
        try directory.write(
            "config/tea.notification", "[Notification]\nTitle=Tea\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        let (process, _) = try ChimedDesktopTests().startChimed(in: directory, bus: bus, zone: "Europe/Berlin")
        defer {
            process.signal(SIGTERM)
            process.wait(timeout: 10)
        }
        #expect(
            waitFor(
                {
                    process.standardError.contains(
                        "tea: Tea (held while quiet: do-not-disturb (the notification server))")
                },
                timeout: 10), "\(process.standardError)")
        #expect(!process.standardError.contains("Quiet ended"))
        #expect(Self.summaries(server).isEmpty)
    }
}

/// Why GNOME's setting cannot be tried here, if it cannot.
let gnomeSettingsUnmetRequirement: String? = desktopTestsUnmetRequirement ?? PrivateDconf.unmetRequirement

/// GNOME's do-not-disturb, `show-banners` off, written with `gsettings` through a real dconf service on the private
/// bus (`PrivateDconf`), with the settings database in the test's directory, which chimed reads in-process.
@Suite(
    .serialized,
    .enabled(if: gnomeSettingsUnmetRequirement == nil, "skipped: \(gnomeSettingsUnmetRequirement ?? "")"))
struct GnomeDoNotDisturbTests {
    @Test func hiddenBannersHoldWhatMayNotInterruptUntilTheyAreShownAgain() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-gnome")
        defer { directory.remove() }
        let dconf = try PrivateDconf(directory: directory)
        defer { dconf.stop() }
        let bus = dconf.bus
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=body"])
        defer { server.stop() }
        let (process, _) = try ChimedDesktopTests().startChimed(
            in: directory, bus: bus, zone: "Europe/Berlin", environment: dconf.environment)
        defer {
            process.signal(SIGTERM)
            process.wait(timeout: 10)
        }

        try dconf.set("org.gnome.desktop.notifications", "show-banners", "false")
        #expect(
            waitFor({ process.standardError.contains("Quiet (do-not-disturb (GNOME)).") }, timeout: 10),
            "\(process.standardError)")
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 2
        try directory.write(
            "config/Tea.notification", "[Notification]\nTitle=Tea\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        process.signal(SIGHUP)
        #expect(
            waitFor(
                { process.standardError.contains("Tea: Tea (held while quiet: do-not-disturb (GNOME))") }, timeout: 10),
            "\(process.standardError)")
        #expect(DesktopDoNotDisturbTests.summaries(server).isEmpty)

        try dconf.set("org.gnome.desktop.notifications", "show-banners", "true")
        server.waitForRecords { _ in DesktopDoNotDisturbTests.summaries(server) == ["Tea"] }
        #expect(DesktopDoNotDisturbTests.summaries(server) == ["Tea"], "\(process.standardError)")
    }
}

/// `Repeat=` against the real chimed and the recording server: the bubble comes back until the user acknowledges it,
/// with the `ack` action or by closing it.
@Suite(
    .serialized,
    .enabled(if: desktopTestsUnmetRequirement == nil, "skipped: \(desktopTestsUnmetRequirement ?? "")"))
struct RepeatUntilAcknowledgedTests {
    @Test func theBubbleComesBackUntilAcknowledgedByItsActionOrByClosingIt() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-repeat")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let server = try DBusFixture(
            "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=actions,body"])
        defer { server.stop() }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        for id in ["Pills", "Water"] {
            try directory.write(
                "config/\(id).notification",
                "[Notification]\nTitle=\(id)\nRepeat=1s\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        }
        let (process, _) = try ChimedDesktopTests().startChimed(in: directory, bus: bus, zone: "Europe/Berlin")
        defer {
            process.signal(SIGTERM)
            process.wait(timeout: 10)
        }
        func calls(_ title: String) -> [[String: Any]] {
            server.records.filter { $0["method"] as? String == "Notify" && $0["summary"] as? String == title }
        }
        // Delivered, then again, the repeat replacing the bubble; the bubble offers "ack".
        server.waitForRecords(timeout: .seconds(20)) { _ in calls("Pills").count >= 2 && calls("Water").count >= 2 }
        let pills = calls("Pills")
        try #require(pills.count >= 2, "\(process.standardError)")
        let bubble = try #require(pills[0]["id"] as? Int)
        #expect(pills[0]["actions"] as? [String] == ["ack", "Acknowledge"])
        #expect(pills.dropFirst().allSatisfy { $0["replaces_id"] as? Int == bubble })

        try await ChimedDesktopTests.choose("ack", on: bubble, bus: bus)
        let water = try #require(calls("Water").first?["id"] as? Int)
        try await ChimedDesktopTests.close(water, reason: 2, bus: bus)
        #expect(
            waitFor(
                {
                    process.standardError.contains("Pills: Pills (acknowledged by the desktop action 'ack'")
                        && process.standardError.contains("Water: Water (acknowledged by the user closing the bubble")
                }, timeout: 10), "\(process.standardError)")
        // A repeat already handed off may still reach the server; then nothing more, for longer than a repeat takes.
        usleep(300_000)
        let (pillsSettled, waterSettled) = (calls("Pills").count, calls("Water").count)
        usleep(1_500_000)
        #expect(calls("Pills").count == pillsSettled)
        #expect(calls("Water").count == waterSettled)
    }
}
