import Foundation

/// The stages every delivery passes, in this order, whatever made it (an occurrence, a catch-up, a snooze, a repeat,
/// a re-delivery after a restart):
///
///     scheduler → PresentationFilter → FocusGate → DeliveryBadges → DeliveredSignals → DeliverySounds → Dispatcher
///     → backends
///
/// What quiet hours hold stops at the focus gate and goes on from there when it is released, so a badge changes and
/// an application hears `Delivered` and a sound rings only for what is shown. Built once, stage by stage, each handed the next at
/// init; the daemon gives the scheduler `head`. Bound to the scheduler's queue.
final class DeliveryPipeline: Sendable {
    let presentation: PresentationFilter
    let focus: FocusGate
    let badges: DeliveryBadges
    let sounds: DeliverySounds
    let dispatcher: Dispatcher
    private let instanceBadge: InstanceBadge
    private let applicationBadges: ApplicationBadges

    /// The first stage: where the scheduler hands deliveries.
    var head: any DeliveryDispatching { presentation }

    init(
        dispatcher: Dispatcher, heldStore: (any HeldDeliveryStore)?, instanceBadge: InstanceBadge,
        applicationBadges: ApplicationBadges, signals: ApplicationSignals, sound: PipelineSound,
        clock: any WallClock, focusTimer: any WallTimer, sleepHold: (any SleepHolding)?, queue: DispatchQueue,
        log: any EventLog
    ) {
        let later: (@escaping @Sendable () -> Void) -> Void = { queue.async(execute: $0) }
        self.dispatcher = dispatcher
        self.instanceBadge = instanceBadge
        self.applicationBadges = applicationBadges
        sounds = DeliverySounds(
            target: dispatcher, dispatcher: dispatcher, player: sound.player, silenceReason: sound.silenceReason,
            serverSounds: sound.serverSounds, environment: sound.environment, log: log, queue: queue)
        let delivered = DeliveredSignals(target: sounds, signals: signals, queue: queue)
        badges = DeliveryBadges(
            target: delivered, instance: instanceBadge, applications: applicationBadges, queue: queue, later: later)
        focus = FocusGate(
            target: badges, clock: clock, timer: focusTimer, log: log, store: heldStore, later: later,
            sleepHold: sleepHold, queue: queue)
        presentation = PresentationFilter(target: focus, queue: queue)
    }

    /// Takes what chimed.conf says of presentation as a rebuild read it: `[Presentation]`, `[Sound]`, and the
    /// launcher entry chime's own badge is shown on (`[Desktop] DesktopEntry=`).
    func configure(presentation settings: PresentationSettings, sound: SoundSettings, desktopEntry: String) {
        presentation.configure(settings)
        sounds.configure(sound)
        instanceBadge.configure(desktopEntry: desktopEntry, isShown: settings.badge)
        applicationBadges.configure(isShown: settings.badge)
    }
}

/// What the sound stage plays with: the player (none for an instance that plays no sound, and why), where the
/// desktop backend says whether its server plays sounds, and chimed's environment (the locale of speech).
struct PipelineSound: Sendable {
    var player: (any SoundPlaying)?
    var silenceReason: String?
    var serverSounds: ServerSoundCapability?
    var environment: [String: String]
}
