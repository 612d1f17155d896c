import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed --user` ringing through a private PulseAudio whose output is recorded, while a recording
/// notification server on a private bus shows the bubbles and sends the clicks.
@Suite(
    .serialized,
    .enabled(
        if: desktopTestsUnmetRequirement == nil && PrivateAudioServer.unmetRequirement == nil,
        "skipped: \(desktopTestsUnmetRequirement ?? PrivateAudioServer.unmetRequirement ?? "")"))
struct ChimedSoundTests {
    /// A private bus with a recording notification server advertising `capabilities`, a private audio server,
    /// and a one-second tone to ring.
    struct Desk {
        let directory: TemporaryDirectory
        let bus: PrivateSessionBus
        let server: DBusFixture
        let audio: PrivateAudioServer
        let tone: String

        init(capabilities: String = "actions,body") async throws {
            directory = try TemporaryDirectory(prefix: "chimed-sound")
            bus = try PrivateSessionBus(directory: directory)
            server = try DBusFixture(
                "notification-server", bus: bus, directory: directory, arguments: ["--capabilities=\(capabilities)"])
            audio = try await PrivateAudioServer()
            tone = directory.path + "/tone.wav"
            try Wave.tone(seconds: 1).write(to: URL(fileURLWithPath: tone))
        }

        func stop() {
            audio.stop()
            server.stop()
            bus.stop()
            directory.remove()
        }

        func startChimed() throws -> RunningProcess {
            try ChimedDesktopTests().startChimed(
                in: directory, bus: bus, zone: "UTC", environment: audio.environment, arguments: ["--user"]
            ).0
        }

        /// The `Notify` calls for `title` so far.
        func calls(_ title: String) -> [[String: Any]] {
            server.records.filter { $0["method"] as? String == "Notify" && $0["summary"] as? String == title }
        }

        /// The hints of the first `Notify` call for `title`, by key: each value as the server got it.
        func hints(_ title: String) throws -> [String: Any] {
            let hints = try #require(calls(title).first?["hints"] as? [String: [String: Any]], "no bubble for \(title)")
            return hints.compactMapValues { $0["value"] }
        }

        /// Waits for the first bubble of `title`; its server id.
        func bubble(_ title: String) throws -> Int {
            server.waitForRecords(timeout: .seconds(20)) { _ in !calls(title).isEmpty }
            return try #require(calls(title).first?["id"] as? Int, "no bubble for \(title)")
        }
    }

    /// Seconds since 1970 a few seconds ahead, whole: an `At=@…` that is not yet due when chimed has started.
    static func soon(_ seconds: Int) -> Int { Int(Date().timeIntervalSince1970.rounded(.up)) + seconds }

    @Test func aRingLastsItsLengthAndAnAlarmStopsAtTheClick() async throws {
        let desk = try await Desk()
        defer { desk.stop() }
        let due = Self.soon(3)
        try desk.directory.write(
            "config/tea.notification",
            "[Notification]\nTitle=Tea\nSound=\(desk.tone)\nRing=5s\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        try desk.directory.write(
            "config/alarm.notification",
            "[Notification]\nTitle=Alarm\nSound=\(desk.tone)\nRing=until-answered\nDeliver=desktop\n"
                + "[Trigger]\nAt=@\(due + 7)\n")
        let chimed = try desk.startChimed()
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let clock = ContinuousClock()
        let timeline = Locked<(start: ContinuousClock.Instant, click: ContinuousClock.Instant)?>(nil)
        let recording = try await desk.audio.recording {
            let start = clock.now
            let alarm = try desk.bubble("Alarm")
            try await Task.sleep(for: .seconds(2))
            let click = clock.now
            try await ChimedDesktopTests.choose("default", on: alarm, bus: desk.bus)
            timeline.withLock { $0 = (start, click) }
            try await Task.sleep(for: .seconds(1))
        }
        let (start, click) = try #require(timeline.withLock { $0 })
        let sounds = recording.sounds()
        try #require(sounds.count == 2, "\(sounds); \(chimed.standardError)")
        let tea = sounds[0].upperBound - sounds[0].lowerBound
        #expect((.milliseconds(4500)...(.milliseconds(5500))).contains(tea), "\(sounds)")
        let silencedAfterClick = sounds[1].upperBound - (click - start)
        #expect(silencedAfterClick < .milliseconds(300), "\(sounds), click at \(click - start)")
        #expect(sounds[1].upperBound - sounds[1].lowerBound > .milliseconds(1500), "\(sounds)")
        // Heard once: the server was asked to keep its own sound to itself.
        for title in ["Tea", "Alarm"] {
            let hints = try desk.hints(title)
            #expect(hints["suppress-sound"] as? Bool == true, "\(hints)")
            #expect(hints["sound-file"] == nil && hints["sound-name"] == nil, "\(hints)")
        }
        // The ringing bubbles stay until they are answered.
        #expect(desk.calls("Tea").first?["expire_timeout"] as? Int == 0)
        #expect(desk.calls("Alarm").first?["expire_timeout"] as? Int == 0)
    }

    @Test func aServerThatPlaysSoundsPlaysAShortOneAndChimeDoesNot() async throws {
        let desk = try await Desk(capabilities: "actions,body,sound")
        defer { desk.stop() }
        let due = Self.soon(3)
        try desk.directory.write(
            "config/ping.notification",
            "[Notification]\nTitle=Ping\nSound=\(desk.tone)\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        try desk.directory.write(
            "config/bell.notification",
            "[Notification]\nTitle=Bell\nSound=\(desk.tone)\nRing=2s\nDeliver=desktop\n[Trigger]\nAt=@\(due + 3)\n")
        let chimed = try desk.startChimed()
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let recording = try await desk.audio.recording {
            _ = try desk.bubble("Bell")
            try await Task.sleep(for: .seconds(3))
        }
        // The short one is the server's to play (this one plays nothing): chime is silent for it. The ringing one
        // only chime can ring.
        let sounds = recording.sounds()
        try #require(sounds.count == 1, "\(sounds); \(chimed.standardError)")
        #expect((.milliseconds(1500)...(.milliseconds(2500))).contains(sounds[0].upperBound - sounds[0].lowerBound))
        let ping = try desk.hints("Ping")
        #expect(ping["sound-file"] as? String == desk.tone, "\(ping)")
        let bell = try desk.hints("Bell")
        #expect(bell["suppress-sound"] as? Bool == true, "\(bell)")
    }

    @Test func aMissingAudioServerIsAWarningAndTheBubbleStillComes() async throws {
        let desk = try await Desk()
        defer { desk.stop() }
        try desk.directory.write(
            "config/tea.notification",
            "[Notification]\nTitle=Tea\nSound=default\nDeliver=desktop\n[Trigger]\nAt=@\(Self.soon(3))\n")
        let chimed = try ChimedDesktopTests().startChimed(
            in: desk.directory, bus: desk.bus, zone: "UTC",
            environment: ["PULSE_SERVER": "unix:\(desk.directory.path)/no-such-server"], arguments: ["--user"]
        ).0
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        _ = try desk.bubble("Tea")
        #expect(
            waitFor(
                { chimed.standardError.contains("tea: the sound 'message-new-instant' was not played:") }, timeout: 10),
            "\(chimed.standardError)")
    }

    /// `chimectl` on the desk's directories, run to its end.
    static func chimectl(_ desk: Desk, _ arguments: [String]) throws -> ProcessRunner.Output {
        try ProcessRunner.run(
            BinaryLocator.path(of: "chimectl"),
            arguments + [
                "--user", "--state-dir=\(desk.directory.path)/state", "--runtime-dir=\(desk.directory.path)/run",
            ], environment: ["TZ": "UTC"])
    }

    @Test func quietHoldsTheRingAndACriticalOneRingsThrough() async throws {
        let desk = try await Desk()
        defer { desk.stop() }
        let quiet = try Self.chimectl(desk, ["quiet", "on", "--for=10min"])
        try #require(quiet.status == 0, "\(quiet.standardError)")
        let due = Self.soon(3)
        try desk.directory.write(
            "config/tea.notification",
            "[Notification]\nTitle=Tea\nSound=\(desk.tone)\nRing=2s\nDeliver=desktop\n[Trigger]\nAt=@\(due)\n")
        try desk.directory.write(
            "config/smoke.notification",
            "[Notification]\nTitle=Smoke\nSound=\(desk.tone)\nRing=2s\nInterruptionLevel=critical\nDeliver=desktop\n"
                + "[Trigger]\nAt=@\(due + 3)\n")
        let chimed = try desk.startChimed()
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let recording = try await desk.audio.recording {
            _ = try desk.bubble("Smoke")
            try await Task.sleep(for: .seconds(3))
        }
        // Only the critical one rang; the held one was neither shown nor heard.
        let sounds = recording.sounds()
        #expect(sounds.count == 1, "\(sounds); \(chimed.standardError)")
        #expect(sounds.allSatisfy { $0.upperBound - $0.lowerBound > .milliseconds(1500) }, "\(sounds)")
        #expect(desk.calls("Tea").isEmpty)
        #expect(chimed.standardError.contains("tea: Tea (held while quiet"), "\(chimed.standardError)")
    }

    @Test func aRepeatRingsAgainUntilChimectlAck() async throws {
        let desk = try await Desk()
        defer { desk.stop() }
        try desk.directory.write(
            "config/pills.notification",
            "[Notification]\nTitle=Pills\nSound=\(desk.tone)\nRing=1s\nRepeat=2s\nDeliver=desktop\n"
                + "[Trigger]\nAt=@\(Self.soon(3))\n")
        let chimed = try desk.startChimed()
        defer {
            chimed.signal(SIGTERM)
            chimed.wait(timeout: 10)
        }
        let clock = ContinuousClock()
        let acknowledged = Locked<Duration?>(nil)
        let recording = try await desk.audio.recording {
            let start = clock.now
            desk.server.waitForRecords(timeout: .seconds(20)) { _ in desk.calls("Pills").count >= 3 }
            // The third ring under way.
            try await Task.sleep(for: .milliseconds(500))
            let ack = try Self.chimectl(desk, ["ack", "pills"])
            acknowledged.withLock { $0 = clock.now - start }
            try #require(ack.status == 0, "\(ack.standardError)")
            try await Task.sleep(for: .seconds(4))
        }
        let ackAt = try #require(acknowledged.withLock { $0 })
        let sounds = recording.sounds()
        // It rang at the delivery and at each repeat, then no more.
        #expect(sounds.filter { $0.lowerBound < ackAt }.count >= 3, "\(sounds), ack at \(ackAt)")
        #expect(sounds.allSatisfy { $0.lowerBound < ackAt + .milliseconds(300) }, "\(sounds), ack at \(ackAt)")
        #expect(
            chimed.standardError.contains("pills: Pills (acknowledged by chimectl ack"), "\(chimed.standardError)")
    }
}
