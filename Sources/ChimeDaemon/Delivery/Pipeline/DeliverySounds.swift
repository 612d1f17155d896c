import ChimeCore
import Foundation

/// The sound stage, after the application signals and before the dispatcher: a delivery with `Sound=` that chime
/// plays itself (the user instance, through its `SoundPlaying`) starts ringing here, and goes on to the backends
/// asking them for quiet (`Delivery.isSoundSuppressed`), so that it is heard once. A plain short sound going to a
/// desktop server that plays sounds (`ServerSoundCapability`) is left to that server.
///
/// What the stages before kept back (quiet hours, `[Presentation] Sound=no`) never gets here, so it never rings; a
/// delivery that passes quiet (`critical`, a `time-sensitive` one by `[Focus]`) rings. A sound rings until its
/// `Ring=` is over or the notification is answered (`stop`): clicked, dismissed, closed, acknowledged, removed. A
/// notification rings once at a time: its next delivery (a repeat) stops the last one's sound and starts again.
///
/// Bound to the scheduler's queue when given one, as the stages around it are.
final class DeliverySounds: DeliveryDispatching, @unchecked Sendable {
    private let target: any DeliveryDispatching
    private let dispatcher: Dispatcher
    private let player: (any SoundPlaying)?
    /// Why this instance plays no sound, said once for each notification that has one; `nil` to leave the sound to
    /// the backends without a word (a user instance without a player, as in tests).
    private let silenceReason: String?
    private let serverSounds: ServerSoundCapability?
    /// chimed's environment: the locale speech is read in.
    private let environment: [String: String]
    private let log: any EventLog
    private let queue: DispatchQueue?

    private var settings = SoundSettings()
    /// What rings now, by notification id.
    private var ringing: [String: Ringing] = [:]
    private var nextToken: UInt64 = 0
    /// The last reason a sound could not be played: the same again (no audio server, every time) is not logged again
    /// until a sound plays.
    private var lastFailure: String?
    private var warnedSilent: Set<String> = []

    private struct Ringing {
        var token: UInt64
        var sound: any SoundStopping
    }

    /// The most sounds that ring at once: a burst of deliveries (a hundred requests an application added for the same
    /// minute) would otherwise start a pipeline and a thread for each. The newest rings; the oldest makes way.
    static let maximumRinging = 4

    /// - Parameters:
    ///   - target: the next stage (the dispatcher).
    ///   - dispatcher: where the backends a delivery goes to are named.
    ///   - player: where chime's own sounds play; `nil` when this instance plays none.
    ///   - silenceReason: why there is no player, for the journal (the system instance); `nil` says nothing.
    ///   - queue: the queue it is used on; tests that call it directly give none.
    init(
        target: any DeliveryDispatching, dispatcher: Dispatcher, player: (any SoundPlaying)?, silenceReason: String?,
        serverSounds: ServerSoundCapability?, environment: [String: String] = [:], log: any EventLog,
        queue: DispatchQueue? = nil
    ) {
        self.target = target
        self.dispatcher = dispatcher
        self.player = player
        self.silenceReason = silenceReason
        self.serverSounds = serverSounds
        self.environment = environment
        self.log = log
        self.queue = queue
    }

    private func onQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }

    /// Takes chimed.conf's `[Sound]` as a rebuild read it.
    func configure(_ settings: SoundSettings) {
        onQueue()
        self.settings = settings
    }

    func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        onQueue()
        var delivery = delivery
        let notification = delivery.notification
        let asksForSound = notification.sound != nil || notification.soundStyle.speaks
        if asksForSound, !delivery.isSoundSuppressed {
            if let player {
                if let request = request(for: delivery) {
                    start(request, of: delivery, on: player)
                    delivery.isSoundSuppressed = true
                    delivery.isRinging = request.ringing != nil
                }
            } else {
                sayItIsSilent(delivery)
            }
        }
        target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
    }

    /// Says once for each notification why this instance plays no sound (the system instance), if it says it.
    private func sayItIsSilent(_ delivery: Delivery) {
        let notification = delivery.notification
        guard let silenceReason, warnedSilent.insert(notification.id).inserted else { return }
        log.record(
            DaemonEvent(
                .systemError,
                "\(notification.id): \(notification.sound == nil ? "Speak=" : "Sound=") is not played: \(silenceReason).",
                fields: Dispatcher.fields(of: delivery, backend: nil) + [("CHIME_SOUND", notification.sound ?? "")],
                priority: .warning))
    }

    /// What chime plays for `delivery`, a delivery with a sound or speech: `nil` when it is a plain short sound
    /// the desktop's server plays itself.
    func request(for delivery: Delivery) -> SoundRequest? {
        let notification = delivery.notification
        let style = notification.soundStyle
        if !style.needsChime, serverSounds?.playsSounds == true,
            dispatcher.backendNames(for: notification).contains("desktop")
        {
            return nil
        }
        let name = notification.sound.map { sound in
            sound != "default" ? sound : style.ring == .once ? Self.messageSound : Self.alarmSound
        }
        let ringing: Duration? =
            switch style.ring {
            case .once: nil
            case .span(let span): min(span, settings.ringLimit)
            case .untilAnswered: settings.ringLimit
            }
        let speech =
            style.speaks ? [notification.title, notification.body].filter { !$0.isEmpty }.joined(separator: ". ") : nil
        return SoundRequest(
            sound: name, theme: settings.theme, volume: style.volume ?? settings.volume, ringing: ringing,
            fadeIn: style.fadeIn, speech: speech,
            language: style.speaks ? style.language ?? Self.language(environment) : nil)
    }

    /// The XDG sound naming specification's sound for a new message, which `Sound=default` plays.
    static let messageSound = "message-new-instant"
    /// Its alarm clock's, which `Sound=default` plays when it rings (`Ring=`).
    static let alarmSound = "alarm-clock-elapsed"

    /// The language of the locale (`de` of `de_DE.UTF-8`), as `LC_MESSAGES` resolves it; `nil` for `C`/`POSIX`.
    static func language(_ environment: [String: String]) -> String? {
        guard let locale = MessageLocale.resolve(environment), locale != "C", locale != "POSIX", !locale.hasPrefix("C.")
        else { return nil }
        let language = locale.prefix { $0 != "." && $0 != "@" }
        return language.isEmpty ? nil : String(language)
    }

    private func start(_ request: SoundRequest, of delivery: Delivery, on player: any SoundPlaying) {
        let id = delivery.notification.id
        ringing.removeValue(forKey: id)?.sound.stop()
        while ringing.count >= Self.maximumRinging, let oldest = ringing.min(by: { $0.value.token < $1.value.token }) {
            ringing.removeValue(forKey: oldest.key)?.sound.stop()
        }
        nextToken &+= 1
        let token = nextToken
        let queue = self.queue
        let sound = player.play(request) { [weak self] ending in
            guard let self else { return }
            guard let queue else {
                return self.ended(id: id, token: token, ending: ending, delivery: delivery, request: request)
            }
            queue.async { self.ended(id: id, token: token, ending: ending, delivery: delivery, request: request) }
        }
        ringing[id] = Ringing(token: token, sound: sound)
    }

    private func ended(id: String, token: UInt64, ending: SoundEnding, delivery: Delivery, request: SoundRequest) {
        onQueue()
        if ringing[id]?.token == token { ringing[id] = nil }
        guard case .failed(let reason) = ending else {
            lastFailure = nil
            return
        }
        guard reason != lastFailure else { return }
        lastFailure = reason
        log.record(
            DaemonEvent(
                .systemError,
                "\(id): " + (request.sound.map { "the sound '\($0)'" } ?? "the speech") + " was not played: \(reason)",
                fields: Dispatcher.fields(of: delivery, backend: nil) + [
                    ("CHIME_SOUND", request.sound ?? ""), ("CHIME_ERROR", reason),
                ], priority: .warning))
    }

    /// Whether notification `id` is ringing now.
    func isRinging(_ id: String) -> Bool {
        onQueue()
        return ringing[id] != nil
    }

    /// Silences the notifications `ids`: they were answered.
    func stop(_ ids: Set<String>) {
        onQueue()
        for id in ids { ringing.removeValue(forKey: id)?.sound.stop() }
    }

    /// Silences every notification whose id begins with `prefix` (an application's, `APP_ID:`).
    func stop(prefix: String) {
        onQueue()
        stop(Set(ringing.keys.filter { $0.hasPrefix(prefix) }))
    }
}
