import ChimeCore
import ChimeDaemon
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
    ) async throws -> (Recording, SoundEnding, stoppedWithin: Duration?) {
        setenv("PULSE_SERVER", server.address, 1)
        let outcome = Locked<(SoundEnding, ContinuousClock.Instant)?>(nil)
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

/// Speech and sound through chimed's player: the sound theme's file, then the text read by espeak-ng, heard.
@Suite(
    .enabled(
        if: PrivateAudioServer.unmetRequirement == nil && SpeechRenderer.unmetRequirement == nil,
        "skipped: \(PrivateAudioServer.unmetRequirement ?? SpeechRenderer.unmetRequirement ?? "")"),
    .serialized)
struct ThemedSoundPlayerTests {
    /// Plays `request` through a `ThemedSoundPlayer` on `server` while recording; `during` runs once it started.
    static func heard(
        _ request: SoundRequest, on server: PrivateAudioServer,
        during: @Sendable (any SoundStopping) async throws -> Void = { _ in }
    ) async throws -> (Recording, SoundEnding) {
        setenv("PULSE_SERVER", server.address, 1)
        let player = ThemedSoundPlayer(
            environment: ["HOME": server.directory.path], scratchDirectory: server.directory.path)
        let ending = Locked<SoundEnding?>(nil)
        let recording = try await server.recording {
            let sound = player.play(request) { result in ending.withLock { $0 = result } }
            try await during(sound)
            let ended = await eventually(timeout: 30) { ending.withLock { $0 != nil } }
            try #require(ended, "the playback did not end")
            try await Task.sleep(for: .milliseconds(300))
        }
        return (recording, try #require(ending.withLock { $0 }))
    }

    @Test func speechLastsLongerForALongerTextAndFollowsTheSound() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let (short, shortEnding) = try await Self.heard(
            SoundRequest(sound: nil, speech: "Tea", language: "en"), on: server)
        #expect(shortEnding == .played)
        let (long, _) = try await Self.heard(
            SoundRequest(
                sound: nil, speech: "Take your pills. The blue box on the kitchen shelf, with a glass of water.",
                language: "en"), on: server)
        #expect(short.audible() > .milliseconds(200), "\(short.sounds())")
        #expect(long.audible() > short.audible() * 4, "\(short.audible()) \(long.audible())")
        // A sound, then the speech after it: more than the sound alone.
        let tone = server.directory.path + "/tone.wav"
        try Wave.tone(seconds: 1).write(to: URL(fileURLWithPath: tone))
        let (both, _) = try await Self.heard(SoundRequest(sound: tone, speech: "Tea is ready"), on: server)
        #expect(both.audible() > .milliseconds(1400), "\(both.sounds())")
    }

    @Test func aStopDuringTheSoundSilencesTheSpeechToo() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let tone = server.directory.path + "/tone.wav"
        try Wave.tone(seconds: 1).write(to: URL(fileURLWithPath: tone))
        let (recording, ending) = try await Self.heard(
            SoundRequest(sound: tone, ringing: .seconds(30), speech: "You should never hear this"), on: server
        ) { sound in
            try await Task.sleep(for: .milliseconds(1500))
            sound.stop()
        }
        #expect(ending == .stopped)
        #expect(recording.audible() < .milliseconds(2200), "\(recording.sounds())")
    }

    @Test func aNameMissingFromEveryThemeIsAFailureSayingSo() async throws {
        let server = try await PrivateAudioServer()
        defer { server.stop() }
        let (recording, ending) = try await Self.heard(SoundRequest(sound: "no-such-sound-anywhere"), on: server)
        guard case .failed(let why) = ending else {
            Issue.record("\(ending)")
            return
        }
        #expect(why.contains("no sound 'no-such-sound-anywhere'"), "\(why)")
        #expect(recording.audible() == .zero)
    }
}
