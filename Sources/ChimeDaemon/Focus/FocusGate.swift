import ChimeCore
import Foundation

/// Focus: stands between the scheduler and the dispatcher, and decides for each delivery whether it may interrupt
/// now. While it is quiet (chimed.conf's quiet hours, `chimectl quiet on`, the desktop's do-not-disturb), a
/// delivery is held, recorded in the journal only, dropped or passed by its interruption level (`QuietPolicy`);
/// when quiet ends, what was held comes out once, as a summary or each on its own.
///
/// What is held is kept in a `HeldDeliveryStore` before the scheduler is told the delivery is done, so a restart
/// loses nothing: a delivery is in the state's in-flight records or in the store, and until the release of a held
/// delivery is done it stays in the store too. Arms a timer of its own for the next instant quiet may begin or end.
///
/// Bound to the scheduler's queue when given one (checked); tests that call it directly give none.
public final class FocusGate: DeliveryDispatching, @unchecked Sendable {
    private let target: any DeliveryDispatching
    private let clock: any WallClock
    private let timer: any WallTimer
    private let log: any EventLog
    private let store: (any HeldDeliveryStore)?
    /// Runs work on the gate's queue after what runs now (the daemon's `queue.async`): deliveries held during one
    /// fire are kept in one write.
    private let later: (@escaping @Sendable () -> Void) -> Void
    private let queue: DispatchQueue?

    private var settings = FocusSettings()
    private var quietSwitch: QuietSwitch?
    /// What reports the desktop's do-not-disturb as on; `nil` when it is off.
    private var desktop: String?
    private var systemZone = ZoneRules.utc
    private var isConfigured = false
    private var quietness = Quietness(
        at: Date(timeIntervalSince1970: 0), hours: QuietHours(), quietSwitch: nil, desktop: nil, systemZone: .utc)
    private var held: [Delivery]
    /// Held deliveries whose release is under way, by batch: kept until the backends are done with them.
    private var releasing: [Int: [Delivery]] = [:]
    private var nextBatch = 0
    /// The scheduler's `finished` of deliveries held but not yet written to the store.
    private var unsaved: [@Sendable () -> Void] = []

    /// Keeps the system awake while a released delivery of a notification with `WakeSystem=yes` is in flight, as
    /// the scheduler does for what it hands over.
    private let sleepHold: (any SleepHolding)?
    /// Told when the status changes: quiet begins or ends, a delivery is held or released (`ScheduleReporter`).
    private weak var follower: (any FocusFollowing)?

    /// - Parameters:
    ///   - target: where deliveries that may interrupt go (the dispatcher).
    ///   - timer: the gate's own; it installs its handler.
    ///   - store: what a restart finds held; the gate starts holding it.
    ///   - later: runs work on the gate's queue after the current work; tests run it at once.
    public init(
        target: any DeliveryDispatching, clock: any WallClock, timer: any WallTimer, log: any EventLog,
        store: (any HeldDeliveryStore)?, later: @escaping (@escaping @Sendable () -> Void) -> Void = { $0() },
        sleepHold: (any SleepHolding)? = nil, queue: DispatchQueue? = nil
    ) {
        self.queue = queue
        self.sleepHold = sleepHold
        self.target = target
        self.clock = clock
        self.timer = timer
        self.log = log
        self.store = store
        self.later = later
        held = store?.load() ?? []
        timer.setHandler { [weak self] in self?.evaluate() }
    }

    /// Takes the settings, the switch and the zone as a rebuild found them, and decides again.
    public func configure(_ settings: FocusSettings, quietSwitch: QuietSwitch?, systemZone: ZoneRules) {
        onQueue()
        self.settings = settings
        self.quietSwitch = quietSwitch
        self.systemZone = systemZone
        isConfigured = true
        evaluate()
    }

    /// Has `follower` told when the status changes.
    public func followed(by follower: any FocusFollowing) {
        self.follower = follower
    }

    /// The desktop's do-not-disturb changed: on, reported by `source`, or off (`nil`).
    public func desktopChanged(_ source: String?) {
        onQueue()
        guard source != desktop else { return }
        desktop = source
        if isConfigured { evaluate() }
    }

    public var status: QuietStatus { QuietStatus(quietness, held: held.count, zone: systemZone) }

    public func dispatch(
        _ delivery: Delivery, backendFinished: @escaping @Sendable (String) -> Void,
        finished: @escaping @Sendable () -> Void
    ) {
        onQueue()
        if let next = quietness.nextChange, clock.now() >= next { evaluate() }
        guard isConfigured, quietness.isQuiet else {
            target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
            return
        }
        let level = delivery.notification.interruptionLevel
        let handling = settings.policy.handling(of: level)
        let reason = quietness.reasons.map(\.description).joined(separator: ", ")
        let fields =
            Dispatcher.fields(of: delivery, backend: nil) + [
                ("CHIME_INTERRUPTION_LEVEL", level.rawValue), ("CHIME_QUIET_REASON", reason),
            ]
        let subject = "\(delivery.notification.id): \(delivery.notification.title)"
        switch handling {
        case .pass:
            log.record(
                DaemonEvent(.passedQuiet, "\(subject) (\(level.rawValue), delivered while quiet)", fields: fields))
            target.dispatch(delivery, backendFinished: backendFinished, finished: finished)
        case .hold:
            // A repeat of what is held already adds nothing: one reminder comes out when quiet ends.
            if delivery.repeatNumber > 0, held.contains(where: { $0.notification.id == delivery.notification.id }) {
                finished()
                return
            }
            log.record(DaemonEvent(.held, "\(subject) (held while quiet: \(reason))", fields: fields))
            held.append(delivery)
            unsaved.append(finished)
            if unsaved.count == 1 { later { [weak self] in self?.saveHeld() } }
            follower?.focusChanged()
        case .journal:
            log.record(DaemonEvent(.journalOnly, "\(subject) (quiet: recorded in the journal only)", fields: fields))
            finished()
        case .drop:
            log.record(DaemonEvent(.dropped, "\(subject) (dropped while quiet: \(reason))", fields: fields))
            finished()
        }
    }

    /// Writes what is held, then tells the scheduler the deliveries held since the last write are done.
    private func saveHeld() {
        let done = unsaved
        unsaved = []
        save()
        for finished in done { finished() }
    }

    private func save() {
        store?.save(held + releasing.keys.sorted().flatMap { releasing[$0]! })
    }

    /// Decides whether it is quiet now; begins or ends quiet, releasing what was held, and arms for the next change.
    private func evaluate() {
        onQueue()
        guard isConfigured else { return }
        let now = clock.now()
        let wasQuiet = quietness.isQuiet
        quietness = Quietness(
            at: now, hours: settings.hours, quietSwitch: quietSwitch,
            desktop: settings.followsDesktop ? desktop : nil, systemZone: systemZone)
        if quietness.isQuiet && !wasQuiet {
            let reason = quietness.reasons.map(\.description).joined(separator: ", ")
            var fields: [(name: String, value: String)] = [("CHIME_QUIET_REASON", reason)]
            var until = ""
            if let end = quietness.expectedEnd {
                fields.append(("CHIME_QUIET_UNTIL", Timestamp.iso8601(end, fraction: .microseconds)))
                until = " until \(Timestamp.format(end, zone: systemZone) ?? Timestamp.iso8601(end))"
            }
            log.record(DaemonEvent(.quietBegan, "Quiet (\(reason))\(until).", fields: fields))
        } else if !quietness.isQuiet && wasQuiet {
            log.record(
                DaemonEvent(
                    .quietEnded,
                    "Quiet ended; "
                        + (held.isEmpty ? "nothing was held." : "releasing \(held.count) held delivery(ies)."),
                    fields: [("CHIME_HELD", String(held.count))]))
        }
        if !quietness.isQuiet && !held.isEmpty { release(at: now) }
        if let next = quietness.nextChange {
            timer.arm(at: next)
        } else {
            timer.cancel()
        }
        if quietness.isQuiet != wasQuiet { follower?.focusChanged() }
    }

    /// Delivers what was held, as `[Focus] Release=` says; each stays in the store until its backends are done.
    private func release(at now: Date) {
        let releasedNow = held
        held = []
        for delivery in releasedNow {
            log.record(
                DaemonEvent(
                    .released, "\(delivery.notification.id): \(delivery.notification.title) (released after quiet)",
                    fields: Dispatcher.fields(of: delivery, backend: nil)))
        }
        let outgoing =
            settings.policy.release == .each
            ? releasedNow.map { ($0, [$0]) } : QuietSummary.deliveries(of: releasedNow, at: now, zone: systemZone)
        var batches: [(Int, Delivery)] = []
        for (delivery, standsFor) in outgoing {
            releasing[nextBatch] = standsFor
            batches.append((nextBatch, delivery))
            nextBatch += 1
        }
        save()
        for (batch, delivery) in batches {
            let wakes = releasing[batch]!.contains { $0.notification.timing.wakesSystem }
            let awake = wakes ? sleepHold?.hold("Delivering \(delivery.notification.id) (WakeSystem=yes)") : nil
            target.dispatch(delivery) { [weak self] in
                awake?()
                self?.later { [weak self] in
                    guard let self, releasing.removeValue(forKey: batch) != nil else { return }
                    save()
                }
            }
        }
        follower?.focusChanged()
    }

    private func onQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}

/// Who follows the focus gate's status (`FocusGate.followed(by:)`): `ScheduleReporter`.
public protocol FocusFollowing: AnyObject, Sendable {
    /// Quiet began or ended, or a delivery was held or released; on the scheduler's queue.
    func focusChanged()
}
