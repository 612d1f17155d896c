import ChimeDaemonTestSupport
import ChimeSystemd
import ChimeTestSupport
import Foundation
import Testing

/// Signals chimed acts on, forged by another client of the same bus: each is believed only from the program that
/// owns the name it speaks for, broadcast or sent to chimed's connection directly.
@Suite(.serialized, .enabled(if: HostileBus.unmetRequirement == nil, "skipped: \(HostileBus.unmetRequirement ?? "")"))
struct HostileSignalTests {
    static func notifyCalls(_ server: DBusFixture, _ count: Int) -> [[String: Any]] {
        server.waitForRecords(timeout: .seconds(20)) { records in
            records.filter { $0["method"] as? String == "Notify" }.count >= count
        }.filter { $0["method"] as? String == "Notify" }
    }

    /// A `NameOwnerChanged` saying the notification server went away, sent to chimed's connections by a client:
    /// chimed keeps its bubbles, so the real server's snooze on one still brings it back.
    @Test func aForgedOwnerChangeSentToChimedDoesNotMakeItForgetItsBubbles() async throws {
        let hostile = try HostileBus(prefix: "hostile-owner")
        defer { hostile.stop() }
        let server = try DBusFixture(
            "notification-server", bus: hostile.bus, directory: hostile.directory,
            arguments: ["--capabilities=actions,body"])
        defer { server.stop() }
        let (process, notify) = try hostile.startChimed()
        defer { process.wait(timeout: 0) }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 2
        try hostile.directory.write(
            "config/tea.notification",
            "[Notification]\nTitle=Tea\nAction=snooze:Snooze\nSnoozeSec=1s\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        process.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)
        let first = try #require(Self.notifyCalls(server, 1).first, "no bubble: \(process.standardError)")
        let bubble = try #require(first["id"] as? Int)

        try hostile.forge(
            to: process.pid, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", signature: "sss", ["org.freedesktop.Notifications", ":1.1", ""])
        try await DBusFixture.control("EmitActionInvoked", bus: hostile.bus) { writer in
            try writer.append(.uint32(UInt32(bubble)))
            try writer.append("snooze")
        }
        let calls = Self.notifyCalls(server, 2)
        #expect(calls.count == 2, "the snooze was ignored: \(process.standardError)")
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    /// logind's `PrepareForSleep(true)` sent to chimed's connections by another client is not believed; the real
    /// logind's is.
    @Test func aForgedSleepSentToChimedIsNotBelieved() async throws {
        let hostile = try HostileBus(prefix: "hostile-sleep")
        defer { hostile.stop() }
        let logind = try DBusFixture("login-manager", bus: hostile.bus, directory: hostile.directory)
        defer { logind.stop() }
        let (process, _) = try hostile.startChimed(systemBus: true, arguments: ["--deliver=stdout"])
        defer { process.wait(timeout: 0) }
        func realResume() throws {
            try hostile.busctl([
                "call", "org.freedesktop.login1", "/org/chime/Test", "org.chime.Test.Control", "EmitPrepareForSleep",
                "b", "false",
            ])
        }
        // The match is installed once the first schedule is in: a resume from logind is the witness that it is.
        #expect(waitFor({ (try? realResume()) != nil && process.standardError.contains("resumed") }, timeout: 10))
        // On a busy machine more than one witness may have been sent before the first was seen: counted once none
        // has come for half a second.
        func resumes() -> Int { process.standardError.components(separatedBy: "The system resumed").count - 1 }
        var witnessed = resumes()
        while true {
            usleep(500_000)
            guard resumes() != witnessed else { break }
            witnessed = resumes()
        }

        for (pid, sleeping) in [(process.pid, "true"), (nil, "true")] as [(Int32?, String)] {
            try hostile.forge(
                to: pid, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                member: "PrepareForSleep", signature: "b", [sleeping])
        }
        try realResume()
        #expect(waitFor({ resumes() == witnessed + 1 }, timeout: 10), "\(process.standardError)")
        #expect(!process.standardError.contains("going to sleep"), "\(process.standardError)")
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    /// dunst's `paused` and KDE's `Inhibited` announced by a program that is not the notification server: nothing is
    /// held. The real server's `Inhibited` still is believed.
    @Test func doNotDisturbAnnouncedByAnotherProgramIsNotBelieved() async throws {
        let hostile = try HostileBus(prefix: "hostile-dnd")
        defer { hostile.stop() }
        let server = try DBusFixture(
            "notification-server", bus: hostile.bus, directory: hostile.directory, arguments: ["--capabilities=body"])
        defer { server.stop() }
        let (process, notify) = try hostile.startChimed()
        defer { process.wait(timeout: 0) }

        for (pid, target) in [(nil, 0), (process.pid, 1)] as [(Int32?, Int)] {
            try hostile.forge(
                to: pid, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", signature: "sa{sv}as",
                ["org.dunstproject.cmd0", "1", "paused", "b", "true", "0"])
            try hostile.forge(
                to: pid, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", signature: "sa{sv}as",
                ["org.freedesktop.Notifications", "1", "Inhibited", "b", "true", "0"])
            let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 2
            try hostile.directory.write(
                "config/tea\(target).notification",
                "[Notification]\nTitle=Tea \(target)\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
            process.signal(SIGHUP)
            try #require(
                notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)
            #expect(
                Self.notifyCalls(server, target + 1).count == target + 1, "held: \(process.standardError)")
        }
        #expect(!process.standardError.contains("Quiet ("), "\(process.standardError)")

        try await DBusFixture.control("SetInhibited", bus: hostile.bus) { try $0.append(.boolean(true)) }
        #expect(
            waitFor(
                { process.standardError.contains("Quiet (do-not-disturb (the notification server))") }, timeout: 10),
            "\(process.standardError)")
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    /// dconf's `Notify` for GNOME's `show-banners` forged 5,000 times at once: chimed reads the setting in-process,
    /// starts no program for it, stays out of do-not-disturb (the forged changes change nothing), and follows the
    /// real change that comes after the flood.
    @Test func aFloodOfSettingChangesCostsNoProgramAndHidesNoRealChange() async throws {
        try #require(PrivateDconf.unmetRequirement == nil, "\(PrivateDconf.unmetRequirement ?? "")")
        let hostile = try HostileBus(prefix: "hostile-dconf", settings: true)
        defer { hostile.stop() }
        let (process, _) = try hostile.startChimed(arguments: ["--deliver=stdout"])
        defer { process.wait(timeout: 0) }
        let client = try BusConnection(address: hostile.bus.address, label: "hostile.dconf")
        defer { client.close() }
        var children: [Int] = []
        for round in 0..<5_000 {
            client.emitSignal(path: "/ca/desrt/dconf/Writer/user", interface: "ca.desrt.dconf.Writer", member: "Notify")
            {
                writer in
                try writer.append("/org/gnome/desktop/notifications/show-banners")
                try writer.append(strings: [""])
                try writer.append("hostile")
            }
            if round % 500 == 0 { children.append(Self.children(of: process.pid)) }
        }
        // The flood reached chimed: the bus took every signal (a call after them is answered after them).
        _ = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId"
        ) { try $0.readString() }
        children += (0..<10).map { _ in
            usleep(50_000)
            return Self.children(of: process.pid)
        }
        #expect(children.allSatisfy { $0 == 0 }, "chimed started programs: \(children)")
        #expect(!process.standardError.contains("Quiet ("), "\(process.standardError)")

        try #require(hostile.dconf != nil)
        try hostile.dconf?.set("org.gnome.desktop.notifications", "show-banners", "false")
        #expect(
            waitFor({ process.standardError.contains("Quiet (do-not-disturb (GNOME)).") }, timeout: 10),
            "\(process.standardError)")
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    /// How many children `pid` has.
    static func children(of pid: Int32) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && fields[1] == "\(pid)"
        }.count
    }
}
