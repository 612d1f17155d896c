import ChimeCore
import ChimeSound
import ChimeTestSupport
import Foundation
import Testing

/// Sound heard: GStreamer plays to a private PulseAudio whose sink's monitor is recorded, and the recording's
/// loudness says what was played, for how long, and how loud.
@Suite(
    .enabled(if: PrivateAudioServer.unmetRequirement == nil, "skipped: \(PrivateAudioServer.unmetRequirement ?? "")"),
    .serialized)
struct SoundPlayerTests {
    /// A steady tone of `seconds`, so that how long it sounded can be measured.
    static func tone(_ directory: TemporaryDirectory, seconds: Double, name: String = "tone.wav") throws -> String {
        let path = directory.path + "/" + name
        try Wave.tone(seconds: seconds).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Plays `playback` on `server` while recording; `during` runs once it started (to stop it, say).
    static func heard(
        _ playback: SoundPlayback, on server: PrivateAudioServer,
        during: @Sendable (SoundRinging) async throws -> Void = { _ in }
    ) async throws -> (Recording, SoundOutcome, stoppedWithin: Duration?) {
        setenv("PULSE_SERVER", server.address, 1)
        let outcome = Locked<(SoundOutcome, ContinuousClock.Instant)?>(nil)
        var stopAsked: ContinuousClock.Instant?
        let recording = try await server.recording {
            let ringing = SoundPlayer().play(playback) { result in
                outcome.withLock { $0 = (result, .now) }
            }
            try await during(ringing)
            if ringing.isStopRequested { stopAsked = .now }
            let ended = await eventually(timeout: 30) { outcome.withLock { $0 != nil } }
            try #require(ended, "the playback did not end")
            try await Task.sleep(for: .milliseconds(300))
        }
        let (result, endedAt) = try #require(outcome.withLock { $0 })
        return (recording, result, stopAsked.map { endedAt - $0 })
    }

    @Test func aToneIsHeardForAsLongAsItLastsAndAQuieterOneIsQuieter() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let tone = try Self.tone(server.directory, seconds: 1)
        let (loud, outcome, _) = try await Self.heard(SoundPlayback(file: tone), on: server)
        #expect(outcome == .played)
        #expect((.milliseconds(800)...(.milliseconds(1200))).contains(loud.audible()), "\(loud.audible())")
        let (quiet, _, _) = try await Self.heard(SoundPlayback(file: tone, volume: 0.25), on: server)
        let ratio = quiet.loudness().max()! / loud.loudness().max()!
        #expect((0.15...0.35).contains(ratio), "\(ratio)")
    }

    @Test func aRingingSoundPlaysAgainUntilItsTimeIsUp() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let tone = try Self.tone(server.directory, seconds: 1)
        let (recording, outcome, _) = try await Self.heard(
            SoundPlayback(file: tone, ringing: .seconds(3)), on: server)
        #expect(outcome == .played)
        #expect((.milliseconds(2500)...(.milliseconds(3500))).contains(recording.audible()), "\(recording.audible())")
    }

    @Test func aStopSilencesItAtOnce() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let tone = try Self.tone(server.directory, seconds: 1)
        let (recording, outcome, stoppedWithin) = try await Self.heard(
            SoundPlayback(file: tone, ringing: .seconds(30)), on: server
        ) { ringing in
            try await Task.sleep(for: .milliseconds(1500))
            ringing.stop()
        }
        #expect(outcome == .stopped)
        let within = try #require(stoppedWithin)
        #expect(within < .milliseconds(300), "\(within)")
        #expect(recording.audible() < .milliseconds(2200), "\(recording.audible())")
        #expect(recording.audible() > .milliseconds(800), "\(recording.audible())")
    }

    @Test func aFadeInRisesFromQuietToFull() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let tone = try Self.tone(server.directory, seconds: 3)
        let (recording, _, _) = try await Self.heard(SoundPlayback(file: tone, fadeIn: .seconds(2)), on: server)
        let levels = recording.loudness(window: .milliseconds(250)).filter { $0 > 0.005 }
        try #require(levels.count >= 8, "\(levels)")
        // Rising over the first two seconds, then steady.
        #expect(levels[0] < levels[3] && levels[3] < levels[7], "\(levels)")
        #expect(levels[0] < 0.5 * levels.max()!, "\(levels)")
    }

    @Test func theFreedesktopAlarmSoundDecodesAndPlays() async throws {
        let path = "/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"
        try #require(FileManager.default.fileExists(atPath: path), "needs sound-theme-freedesktop")
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let (recording, outcome, _) = try await Self.heard(SoundPlayback(file: path), on: server)
        #expect(outcome == .played)
        #expect(recording.audible() > .seconds(1), "\(recording.audible())")
    }

    @Test func aFileThatCannotBePlayedFailsSayingWhy() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let notSound = try server.directory.write("notes.oga", "not a sound")
        let (recording, outcome, _) = try await Self.heard(SoundPlayback(file: notSound), on: server)
        guard case .failed(let why) = outcome else {
            Issue.record("played: \(outcome)")
            return
        }
        #expect(!why.isEmpty)
        #expect(recording.audible() == .zero)
        let (_, missing, _) = try await Self.heard(SoundPlayback(file: server.directory.path + "/none.oga"), on: server)
        #expect(missing != .played)
    }
}
