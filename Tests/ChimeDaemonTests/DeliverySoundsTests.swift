import ChimeCore
import ChimeDaemonTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// The sound stage with a recording spy for the player: what it asks to be played, when it leaves a sound to the
/// desktop's server, and what it stops.
struct DeliverySoundsTests {
    /// A player that records what it is asked to play and to stop, and plays nothing.
    final class SpyPlayer: SoundPlaying, Sendable {
        final class Sound: SoundStopping, Sendable {
            let request: SoundRequest
            private let stopped = Locked(false)
            init(_ request: SoundRequest) { self.request = request }
            func stop() { stopped.withLock { $0 = true } }
            var isStopped: Bool { stopped.withLock { $0 } }
        }

        private let list = Locked<[Sound]>([])
        var sounds: [Sound] { list.withLock { $0 } }

        func play(_ request: SoundRequest, finished: @escaping @Sendable (SoundEnding) -> Void) -> any SoundStopping {
            let sound = Sound(request)
            list.withLock { $0.append(sound) }
            return sound
        }
    }

    /// What the stage passes on.
    final class Passed: DeliveryDispatching, Sendable {
        private let list = Locked<[Delivery]>([])
        var deliveries: [Delivery] { list.withLock { $0 } }
        func dispatch(
            _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
            finished: @escaping @Sendable () -> Void
        ) {
            list.withLock { $0.append(delivery) }
            finished()
        }
    }

    struct Stage {
        let player = SpyPlayer()
        let passed = Passed()
        let log = RecordingEventLog()
        let serverSounds = ServerSoundCapability()
        let sounds: DeliverySounds

        init(player hasPlayer: Bool = true, silenceReason: String? = nil, defaultBackends: [String] = ["desktop"]) {
            let dispatcher = Dispatcher(
                backends: [], defaultBackends: defaultBackends,
                clock: ManualClock(Date(timeIntervalSince1970: 1_800_000_000)), log: log)
            sounds = DeliverySounds(
                target: passed, dispatcher: dispatcher, player: hasPlayer ? player : nil, silenceReason: silenceReason,
                serverSounds: serverSounds, environment: ["LANG": "de_DE.UTF-8"], log: log)
        }

        func deliver(_ id: String, _ lines: String) {
            let notification = SchedulerTests.schedule([(id, lines + "[Trigger]\nAt=2026-10-28 07:00\n")])
                .notifications[0].notification
            sounds.dispatch(
                Delivery(notification: notification, fireTime: Date(timeIntervalSince1970: 1_800_000_000)),
                backendFinished: { _ in }, finished: {})
        }
    }

    @Test func theDefaultSoundIsTheMessageOnceAndTheAlarmWhenItRingsWithinTheLimit() {
        let stage = Stage()
        var settings = SoundSettings()
        settings.volume = 70
        settings.ringLimit = .seconds(120)
        settings.theme = "ocean"
        stage.sounds.configure(settings)
        stage.deliver("ping", "Sound=default\n")
        stage.deliver("tea", "Sound=default\nRing=5min\nVolume=40%\nFadeIn=yes\n")
        stage.deliver("alarm", "Sound=bell\nRing=until-answered\n")
        let requests = stage.player.sounds.map(\.request)
        #expect(
            requests == [
                SoundRequest(sound: "message-new-instant", theme: "ocean", volume: 70),
                SoundRequest(
                    sound: "alarm-clock-elapsed", theme: "ocean", volume: 40, ringing: .seconds(120),
                    fadeIn: SoundStyle.gentleFadeIn),
                SoundRequest(sound: "bell", theme: "ocean", volume: 70, ringing: .seconds(120)),
            ])
        // Played by chime: the backends are asked for quiet.
        #expect(stage.passed.deliveries.map(\.isSoundSuppressed) == [true, true, true])
        #expect(stage.passed.deliveries.map(\.isRinging) == [false, true, true])
    }

    @Test func aServerThatPlaysSoundsGetsThePlainShortOnesIfTheyGoToTheDesktop() {
        let stage = Stage(defaultBackends: ["desktop", "journal"])
        stage.serverSounds.learn(["actions", "body", "sound"])
        stage.deliver("ping", "Sound=default\n")
        stage.deliver("tea", "Sound=default\nRing=30s\n")
        stage.deliver("mail", "Sound=default\nDeliver=journal\n")
        #expect(stage.player.sounds.map(\.request.sound) == ["alarm-clock-elapsed", "message-new-instant"])
        #expect(stage.passed.deliveries.map(\.isSoundSuppressed) == [false, true, true])
        // A server whose capabilities are not known (it changed) plays nothing for chime to rely on.
        stage.serverSounds.learn(nil)
        stage.deliver("ping", "Sound=default\n")
        #expect(stage.player.sounds.count == 3)
    }

    @Test func anAnswerStopsItsNotificationsSoundAndARepeatRingsAfresh() {
        let stage = Stage()
        stage.deliver("tea", "Sound=default\nRing=until-answered\n")
        stage.deliver("pills", "Sound=default\nRing=until-answered\n")
        stage.deliver("tea", "Sound=default\nRing=until-answered\n")
        let sounds = stage.player.sounds
        #expect(sounds.map(\.isStopped) == [true, false, false])
        #expect(stage.sounds.isRinging("tea") && stage.sounds.isRinging("pills"))
        stage.sounds.stop(["tea"])
        #expect(sounds.map(\.isStopped) == [true, false, true])
        #expect(!stage.sounds.isRinging("tea"))
        stage.deliver("org.example.App:wake", "Sound=default\nRing=1min\n")
        stage.sounds.stop(prefix: "org.example.App:")
        #expect(stage.player.sounds.last?.isStopped == true)
        #expect(stage.sounds.isRinging("pills"))
    }

    @Test func speechReadsTheTitleAndBodyInTheLanguageGivenOrTheLocales() {
        let stage = Stage()
        stage.deliver("pills", "Body=The blue box\nSpeak=yes\n")
        stage.deliver("tea", "Sound=default\nSpeak=yes\nLanguage=en-GB\n")
        #expect(
            stage.player.sounds.map(\.request) == [
                SoundRequest(sound: nil, speech: "pills. The blue box", language: "de_DE"),
                SoundRequest(sound: "message-new-instant", speech: "tea", language: "en-GB"),
            ])
        #expect(DeliverySounds.language(["LANG": "pt_BR.UTF-8"]) == "pt_BR")
        #expect(DeliverySounds.language(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR"]) == "fr_FR")
        #expect(DeliverySounds.language(["LC_ALL": "C.UTF-8", "LANG": "de_DE"]) == nil)
    }

    @Test func aBurstRingsTheNewestFewAndStopsTheRest() {
        let stage = Stage()
        for index in 0..<10 { stage.deliver("alarm-\(index)", "Sound=default\nRing=until-answered\n") }
        let stopped = stage.player.sounds.map(\.isStopped)
        let limit = DeliverySounds.maximumRinging
        #expect(stopped == Array(repeating: true, count: 10 - limit) + Array(repeating: false, count: limit))
    }

    @Test func whatIsSilencedOrHasNoSoundIsNotPlayed() {
        let stage = Stage()
        stage.deliver("quiet", "Body=no sound\n")
        var muted = Delivery(
            notification: SchedulerTests.schedule([("muted", "Sound=default\n[Trigger]\nAt=2026-10-28 07:00\n")])
                .notifications[0].notification, fireTime: Date())
        muted.isSoundSuppressed = true
        stage.sounds.dispatch(muted, backendFinished: { _ in }, finished: {})
        #expect(stage.player.sounds.isEmpty)
        #expect(stage.passed.deliveries.count == 2)
    }

    @Test func theSystemInstanceSaysOnceForEachNotificationThatItPlaysNoSound() {
        let stage = Stage(player: false, silenceReason: "no audio session")
        stage.deliver("tea", "Sound=default\n")
        stage.deliver("tea", "Sound=default\n")
        stage.deliver("pills", "Sound=/usr/share/sounds/bell.oga\n")
        let warnings = stage.log.events(.systemError).map(\.message)
        #expect(
            warnings == [
                "tea: Sound= is not played: no audio session.", "pills: Sound= is not played: no audio session.",
            ])
        // The hint still goes to the backends.
        #expect(stage.passed.deliveries.map(\.isSoundSuppressed) == [false, false, false])
    }
}
