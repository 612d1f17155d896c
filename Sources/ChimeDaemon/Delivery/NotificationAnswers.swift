import ChimeCore
import ChimePlatform
import Foundation

/// What chimed does when the user answers a notification (a desktop server's `ActionInvoked` and
/// `NotificationClosed`): `snooze` delivers it again after `SnoozeSec=`, `dismiss` only closes it, any other action
/// runs its `ExecAction=`; each answer is logged. `ack`, a click and (with `DismissAcknowledges=yes`) a dismissal
/// acknowledge a notification that repeats until acknowledged (`Repeat=`).
///
/// Backends call it from their own tasks; what touches the schedule (a snooze) runs on the scheduler's queue.
final class NotificationAnswers: NotificationResponding, Sendable {
    private let queue: DispatchQueue
    private let scheduler: Scheduler
    private let clock: any WallClock
    private let log: any EventLog
    /// chimed's environment: the base of an `ExecAction=` program's, and `TZ`.
    private let environment: [String: String]
    /// Told of each answer to an application's request, on the scheduler's queue.
    private let signals: ApplicationSignals?
    /// Where an answered notification stops ringing.
    private let sounds: DeliverySounds?

    init(
        queue: DispatchQueue, scheduler: Scheduler, signals: ApplicationSignals?, sounds: DeliverySounds?,
        clock: any WallClock, log: any EventLog, environment: [String: String]
    ) {
        self.queue = queue
        self.signals = signals
        self.sounds = sounds
        self.scheduler = scheduler
        self.clock = clock
        self.log = log
        self.environment = environment
    }

    /// The user chose `key` on a notification: logged with `CHIME_ACTION=`; `snooze` delivers it again after
    /// `SnoozeSec=`, `dismiss` only closes it (the backend does), any other runs its `ExecAction=`, if any.
    func actionInvoked(_ key: String, delivery: Delivery, backend: String) {
        queue.async { [self] in
            let notification = delivery.notification
            sounds?.stop([notification.id])
            var fields = Dispatcher.fields(of: delivery, backend: backend) + [("CHIME_ACTION", key)]
            let what: String
            switch key {
            case "snooze":
                if let until = scheduler.snooze(notification.id, for: notification.snooze) {
                    let zone = notification.trigger.timeZone ?? LocalZone.resolve(tz: environment["TZ"])
                    what = "snoozed until \(Timestamp.format(until, zone: zone) ?? "?")"
                    fields.append(("CHIME_SNOOZE_UNTIL", Timestamp.iso8601(until, fraction: .microseconds)))
                } else {
                    what = "snooze chosen, but the notification is no longer scheduled"
                }
            case "dismiss":
                what = "dismissed"
            case "ack":
                what = "acknowledged"
            default:
                if let argv = notification.actionCommands[key] {
                    what = "action '\(key)' chosen; running \(argv[0])"
                    runAction(argv, key: key, delivery: delivery, backend: backend)
                } else {
                    what = "action '\(key)' chosen (no ExecAction=)"
                }
            }
            log.record(DaemonEvent(.actionInvoked, "\(notification.id): \(what) (\(backend))", fields: fields))
            if key == "ack" || key == "default" || (key == "dismiss" && notification.dismissAcknowledges) {
                scheduler.acknowledge([notification.id], by: "the desktop action '\(key)'")
            }
            signals?.answered(delivery, action: key)
        }
    }

    /// How long an `ExecAction=` program (with what it starts in its process group) may run before it is stopped.
    static let actionTimeout: Duration = .seconds(600)

    /// Runs an `ExecAction=` command as a `[Command]` program runs: no shell, the notification in its environment
    /// (with `CHIME_ACTION=KEY`) and as JSON on stdin, its process group stopped at `actionTimeout`. Only a failure
    /// is logged, once it is known.
    private func runAction(_ argv: [String], key: String, delivery: Delivery, backend: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        var environment = CommandRunner.environment(for: delivery, backend: backend, base: self.environment)
        environment["CHIME_ACTION"] = key
        let input = Data((delivery.json(deliveredAt: clock.now(), backend: backend).serialized + "\n").utf8)
        let log = self.log
        let fields = Dispatcher.fields(of: delivery, backend: backend) + [("CHIME_ACTION", key)]
        let id = delivery.notification.id
        Task.detached(executorPreference: DaemonExecutor.shared) {
            let failure: String?
            do {
                let outcome = try await CommandRunner.run(
                    argv, environment: environment, input: input, timeout: Self.actionTimeout)
                failure =
                    outcome.ending == .exited(status: 0)
                    ? nil
                    : "\(argv[0]) \(outcome.explanation(timeout: Self.actionTimeout))"
                        + (outcome.quotedStandardError().map { " (stderr: \($0))" } ?? "")
            } catch {
                failure = "cannot start \(argv[0]): \(error)"
            }
            guard let failure else { return }
            log.record(
                DaemonEvent(
                    .actionInvoked, "\(id): ExecAction= for '\(key)' failed: \(failure)",
                    fields: fields + [("CHIME_ERROR", failure)], priority: .error))
        }
    }

    /// A notification's bubble went away.
    func closed(_ delivery: Delivery, reason: UInt32, backend: String) {
        let why =
            switch reason {
            case 1: "expired"
            case 2: "dismissed by the user"
            case 3: "closed by chimed"
            default: "closed"
            }
        log.record(
            DaemonEvent(
                .closed, "\(delivery.notification.id): \(why) (\(backend))",
                fields: Dispatcher.fields(of: delivery, backend: backend) + [("CHIME_CLOSE_REASON", String(reason))]))
        queue.async { [self] in
            sounds?.stop([delivery.notification.id])
            guard reason == 2 else { return }
            if delivery.notification.dismissAcknowledges {
                scheduler.acknowledge([delivery.notification.id], by: "the user closing the bubble")
            }
            signals?.answered(delivery, action: nil)
        }
    }
}
