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

    @Test func dunstShowsTheNotificationChimedDelivers() async throws {
        let directory = try TemporaryDirectory(prefix: "chimed-dunst")
        defer { directory.remove() }
        let bus = try PrivateSessionBus(directory: directory)
        defer { bus.stop() }

        // -displayfd 1: Xvfb picks a free display and prints its number once it accepts connections.
        let xvfb = try RunningProcess(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x600x24", "-nolisten", "tcp"])
        let number = try #require(
            xvfb.waitForOutput(timeout: .seconds(20)) { $0.hasSuffix("\n") }?
                .trimmingCharacters(in: .whitespacesAndNewlines),
            "Xvfb did not start: \(xvfb.standardError)")
        defer {
            xvfb.wait(timeout: 0)
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        }
        let display = ":\(number)"
        let session = ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": bus.address]

        let rc = try directory.write("dunstrc", Self.dunstrc)
        let dunst = try RunningProcess("/usr/bin/dunst", ["-config", rc], environment: session)
        defer { dunst.wait(timeout: 0) }
        func dunstctl(_ arguments: String...) throws -> ProcessRunner.Output {
            try ProcessRunner.run("/usr/bin/dunstctl", arguments, environment: session)
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
        try waitFor("dunst on the bus") { try dunstctl("count", "displayed").status == 0 }

        try FileManager.default.createDirectory(atPath: directory.path + "/config", withIntermediateDirectories: true)
        let notify = try NotifySocket(directory: directory.path)
        let daemon = try RunningProcess(
            chimed,
            [
                "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run",
                "--state-dir=\(directory.path)/state",
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "Europe/Berlin", "DBUS_SESSION_BUS_ADDRESS": bus.address]
        )
        defer { daemon.wait(timeout: 0) }
        try #require(notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1") == true)
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
        var summaries: [String] = []
        try waitFor("notification in dunstctl history") {
            let history = try dunstctl("history").standardOutput
            let object = try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any]
            let entries = (object?["data"] as? [[[String: Any]]])?.first ?? []
            summaries = entries.compactMap { ($0["summary"] as? [String: Any])?["data"] as? String }
            return !summaries.isEmpty
        }
        #expect(summaries == ["Exam Linear Algebra"])

        daemon.signal(SIGTERM)
        #expect(daemon.wait(timeout: 10) == 0)
    }
}
