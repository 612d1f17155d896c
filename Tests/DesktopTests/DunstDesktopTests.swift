import ChimeTestSupport
import Foundation
import Testing

/// Why the dunst test cannot run here, if it cannot (Debian: dunst, xvfb, imagemagick, tesseract-ocr).
let dunstTestUnmetRequirement: String? = {
    if let reason = desktopTestsUnmetRequirement { return reason }
    let tools = [
        ("/usr/bin/Xvfb", "xvfb"), ("/usr/bin/dunst", "dunst"), ("/usr/bin/dunstctl", "dunst"),
        ("/usr/bin/import", "imagemagick"), ("/usr/bin/tesseract", "tesseract-ocr"),
    ]
    let missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0.0) }
    return missing.isEmpty ? nil : "needs " + Set(missing.map(\.1)).sorted().joined(separator: ", ")
}()

/// The real `chimed` and a real notification daemon: dunst on a virtual X server (Xvfb) and a private session
/// bus. The bubble is photographed (kept under .build/test-artifacts/), its title read back by OCR, and dunst's
/// history must hold it once it is closed.
@Suite(.enabled(if: dunstTestUnmetRequirement == nil, "skipped: \(dunstTestUnmetRequirement ?? "")"))
struct DunstDesktopTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// A large dark-on-white font, and bubbles that stay until closed, for the screenshot and OCR.
    static let dunstrc = """
        [global]
            font = DejaVu Sans 28
            width = 900
            height = 300
            origin = top-left
            offset = 20x20
            frame_width = 2
            frame_color = "#000000"
        [urgency_low]
            background = "#ffffff"
            foreground = "#000000"
            timeout = 0
        [urgency_normal]
            background = "#ffffff"
            foreground = "#000000"
            timeout = 0
        [urgency_critical]
            background = "#ffffff"
            foreground = "#000000"
            timeout = 0
        """

    /// A virtual X server and dunst on it, on the private `bus`.
    final class DunstSession {
        let xvfb: RunningProcess
        let dunst: RunningProcess
        let display: String
        let environment: [String: String]

        /// - Parameter rules: dunstrc sections added to `dunstrc`, the person's own rules.
        init(directory: TemporaryDirectory, bus: PrivateSessionBus, rules: String = "") throws {
            // -displayfd 1: Xvfb picks a free display and prints its number once it accepts connections.
            xvfb = try RunningProcess(
                "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x600x24", "-nolisten", "tcp"])
            guard
                let number = xvfb.waitForOutput(timeout: .seconds(20), where: { $0.hasSuffix("\n") })?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            else {
                xvfb.wait(timeout: 0)
                throw FixtureError("Xvfb did not start: \(xvfb.standardError)")
            }
            display = ":\(number)"
            environment = ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": bus.address]
            let rc = try directory.write("dunstrc", DunstDesktopTests.dunstrc + "\n" + rules)
            dunst = try RunningProcess("/usr/bin/dunst", ["-config", rc], environment: environment)
            try waitFor("dunst on the bus") { try dunstctl("count", "displayed").status == 0 }
        }

        func dunstctl(_ arguments: String...) throws -> ProcessRunner.Output {
            try ProcessRunner.run("/usr/bin/dunstctl", arguments, environment: environment)
        }

        func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while try !condition() {
                guard ContinuousClock.now < deadline else {
                    throw FixtureError("no \(what); dunst: \(dunst.standardError)")
                }
                usleep(50_000)
            }
        }

        /// The closed bubbles in dunst's history (`dunstctl history`), once there are any (or after 20 s).
        func closedBubbles() throws -> [(summary: String, body: String, appName: String)] {
            var bubbles: [(summary: String, body: String, appName: String)] = []
            try waitFor("a bubble in dunstctl history") {
                let history = try dunstctl("history").standardOutput
                let object = try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any]
                let entries = (object?["data"] as? [[[String: Any]]])?.first ?? []
                func text(_ entry: [String: Any], _ key: String) -> String? {
                    (entry[key] as? [String: Any])?["data"] as? String
                }
                bubbles = entries.compactMap { entry in
                    text(entry, "summary").map { ($0, text(entry, "body") ?? "", text(entry, "appname") ?? "") }
                }
                return !bubbles.isEmpty
            }
            return bubbles
        }

        func stop() {
            dunst.wait(timeout: 0)
            xvfb.wait(timeout: 0)
            let number = display.dropFirst()
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        }
    }

    /// chimed on DIRECTORY/config delivering on `bus`, once it said READY=1.
    func startChimed(
        _ directory: TemporaryDirectory, bus: PrivateSessionBus, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> (RunningProcess, NotifySocket) {
        try FileManager.default.createDirectory(atPath: directory.path + "/config", withIntermediateDirectories: true)
        let notify = try NotifySocket(directory: directory.path)
        let daemon = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state",
            ] + arguments,
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "Europe/Berlin", "DBUS_SESSION_BUS_ADDRESS": bus.address]
                .merging(environment) { _, given in given }
        )
        let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true
        if !ready { daemon.wait(timeout: 0) }
        try #require(ready, "chimed did not start: \(daemon.standardError)")
        return (daemon, notify)
    }

    @Test func dunstShowsTheNotificationChimedDelivers() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-dunst")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let session = try DunstSession(directory: directory, bus: bus)
        defer { session.stop() }
        let display = session.display
        let dunstctl = session.dunstctl
        let waitFor = session.waitFor
        let (daemon, notify) = try startChimed(directory, bus: bus)
        defer { daemon.wait(timeout: 0) }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        try directory.write(
            "config/exam.notification",
            """
            [Notification]
            Title=Exam Linear Algebra
            Body=Room 4B
            Deliver=desktop
            [Trigger]
            At=@\(due)
            """)
        daemon.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        try waitFor("bubble") { try dunstctl("count", "displayed").standardOutput == "1\n" }

        let artifacts = BinaryLocator.packageRoot.appendingPathComponent(".build/test-artifacts").path
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts + "/dunst-\(Int(Date().timeIntervalSince1970)).png"
        // dunst draws the bubble just after counting it: photograph until the title can be read.
        var text = ""
        try waitFor("readable title in \(screenshot) (OCR read: \(text))") {
            let shot = try ProcessRunner.run("/usr/bin/import", ["-display", display, "-window", "root", screenshot])
            guard shot.status == 0 else { return false }
            text = try ProcessRunner.run("/usr/bin/tesseract", [screenshot, "-"]).standardOutput
            return text.contains("Exam Linear Algebra")
        }
        print("dunst screenshot: \(screenshot)")
        #expect(text.contains("Room 4B"))

        _ = try dunstctl("close-all")
        #expect(try session.closedBubbles().map(\.summary) == ["Exam Linear Algebra"])

        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }

    @Test func pausedDunstIsQuietUntilItResumes() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-dunst-paused")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let session = try DunstSession(directory: directory, bus: bus)
        defer { session.stop() }
        let (daemon, notify) = try startChimed(directory, bus: bus)
        defer { daemon.wait(timeout: 0) }

        _ = try session.dunstctl("set-paused", "true")
        try session.waitFor("quiet in chimed: \(daemon.standardError)") {
            daemon.standardError.contains("Quiet (do-not-disturb (dunst)).")
        }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        for (id, level) in [("Tea", "active"), ("Pager", "critical")] {
            try directory.write(
                "config/\(id).notification",
                "[Notification]\nTitle=\(id)\nInterruptionLevel=\(level)\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        }
        daemon.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)

        // The critical one is handed to dunst at once (which, paused, keeps it waiting); the other is held by chimed.
        try session.waitFor("the critical one in dunst's queue") {
            try session.dunstctl("count", "waiting").standardOutput == "1\n"
        }
        try session.waitFor("the hold in chimed: \(daemon.standardError)") {
            daemon.standardError.contains("Tea: Tea (held while quiet: do-not-disturb (dunst))")
        }
        #expect(daemon.standardError.contains("Pager: Pager (critical, delivered while quiet)"))
        #expect(try session.dunstctl("count", "displayed").standardOutput == "0\n")
        #expect(try session.dunstctl("count", "waiting").standardOutput == "1\n")

        // Resumed: dunst shows what it kept, and chimed releases what it held.
        _ = try session.dunstctl("set-paused", "false")
        try session.waitFor("both bubbles: \(daemon.standardError)") {
            try session.dunstctl("count", "displayed").standardOutput == "2\n"
        }
        #expect(daemon.standardError.contains("Tea: Tea (released after quiet)"))
        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }

    @Test func aThreadIsOneBubbleInDunst() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-dunst-thread")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let session = try DunstSession(directory: directory, bus: bus)
        defer { session.stop() }
        let (daemon, notify) = try startChimed(directory, bus: bus)
        defer { daemon.wait(timeout: 0) }
        let due = Int(Date().timeIntervalSince1970.rounded(.up)) + 3
        for (id, second) in [("First", due), ("Second", due + 1), ("Third", due + 2)] {
            try directory.write(
                "config/\(id).notification",
                "[Notification]\nTitle=\(id) message\nBody=from Alice\nThread=chat:alice\nDeliver=desktop\n"
                    + "[Trigger]\nAt=@\(second)\n")
        }
        daemon.signal(SIGHUP)
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)
        try session.waitFor("the third delivery: \(daemon.standardError)") {
            daemon.standardError.contains("Third: Third message (delivered to desktop)")
        }
        // One bubble on screen, the latest, standing for the other two; dunst's history holds nothing closed.
        try session.waitFor("one bubble") { try session.dunstctl("count", "displayed").standardOutput == "1\n" }
        usleep(200_000)
        #expect(try session.dunstctl("count", "displayed").standardOutput == "1\n")
        _ = try session.dunstctl("close-all")
        #expect(
            try session.closedBubbles().map { "\($0.summary): \($0.body)" } == ["Third message: from Alice\nand 2 more"]
        )
        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }

    /// An application's request comes up as the application's own: dunst is given the name in its desktop entry, in
    /// the person's language, and its desktop entry, and so applies the rule the person wrote for that entry (here
    /// a script that records what dunst was told); an application without a desktop entry is named by its id.
    @Test func anApplicationsBubbleCarriesItsNameAndItsDesktopEntry() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-dunst-app")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }
        let recorded = directory.path + "/recorded"
        try directory.write(
            "record",
            "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$DUNST_APP_NAME\" \"$DUNST_DESKTOP_ENTRY\" \"$DUNST_SUMMARY\" >> \(recorded)\n",
            permissions: 0o755)
        let rules = "[reminders]\n    desktop_entry = org.example.Reminders\n    script = \(directory.path)/record\n"
        let session = try DunstSession(directory: directory, bus: bus, rules: rules)
        defer { session.stop() }
        try directory.write(
            "data/applications/org.example.Reminders.desktop",
            "[Desktop Entry]\nType=Application\nName=Reminders\nName[de]=Erinnerungen\nExec=true\n")
        try directory.write("config/chimed.conf", "[Daemon]\nDeliver=desktop\n")
        let (daemon, _) = try startChimed(
            directory, bus: bus, arguments: ["--user"],
            environment: [
                "XDG_DATA_HOME": directory.path + "/data", "XDG_DATA_DIRS": directory.path + "/none",
                "LANG": "de_DE.UTF-8",
            ])
        defer { daemon.wait(timeout: 0) }
        let chimectl = BinaryLocator.path(of: "chimectl")
        for (app, title) in [("org.example.Reminders", "Tee"), ("org.example.Unlisted", "Kaffee")] {
            let added = try ProcessRunner.run(
                chimectl, ["add", "--app=\(app)", "--id=\(title)", "--in=1s", "--title=\(title)"],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            #expect(added.status == 0, "\(added.standardError)")
        }
        try session.waitFor("two bubbles: \(daemon.standardError)") {
            try session.dunstctl("count", "displayed").standardOutput == "2\n"
        }
        try session.waitFor("the rule's script") { FileManager.default.fileExists(atPath: recorded) }
        #expect(try String(contentsOfFile: recorded, encoding: .utf8) == "Erinnerungen|org.example.Reminders|Tee\n")
        _ = try session.dunstctl("close-all")
        let closed = try session.closedBubbles().map { "\($0.appName): \($0.summary)" }.sorted()
        #expect(closed == ["Erinnerungen: Tee", "org.example.Unlisted: Kaffee"])
        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }
}
