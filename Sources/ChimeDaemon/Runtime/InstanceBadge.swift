import ChimeCore
import Foundation

/// The instance's badge number (the app-icon badge of the iOS API): kept in the state directory (`BadgeFile`),
/// changed by deliveries with `Badge=` and by `chimectl badge`, and shown on the launcher entry of chimed.conf's
/// `DesktopEntry=` (`UnityLauncherBadge`) unless `[Presentation] Badge=no`.
///
/// Bound to the scheduler's queue when given one (checked). Publishing goes through a queue of its own,
/// since connecting to the session bus must not hold up a fire.
final class InstanceBadge: @unchecked Sendable {
    private let queue: DispatchQueue?
    /// The number now.
    private(set) var count = 0
    private var changed = false
    private let file: BadgeFile
    private let environment: [String: String]
    private let log: any EventLog
    private var launcher: UnityLauncherBadge?
    private var desktopEntry: String?
    private var isShown = true
    private let publishing = DispatchQueue(label: "chimed.badge", qos: .utility)

    init(stateDirectory: String, environment: [String: String], log: any EventLog, queue: DispatchQueue? = nil) {
        self.queue = queue
        file = BadgeFile(stateDirectory: stateDirectory)
        self.environment = environment
        self.log = log
    }

    /// Takes chimed.conf's settings: the launcher entry to publish to, and whether badges are shown at all.
    func configure(desktopEntry: String, isShown: Bool) {
        onQueue()
        self.isShown = isShown
        guard launcher == nil || desktopEntry != self.desktopEntry else { return }
        self.desktopEntry = desktopEntry
        let log = self.log
        launcher = UnityLauncherBadge(
            desktopEntry: desktopEntry, environment: environment,
            onFailure: { reason in
                log.record(
                    DaemonEvent(.systemError, "Cannot publish the badge to launchers: \(reason)", priority: .warning))
            })
    }

    /// At the first rebuild, the stored number (launchers learn a number a restart kept); at each rebuild, the
    /// change `chimectl badge` requested.
    func takeStoredAndRequested(isFirstRebuild: Bool) {
        onQueue()
        if isFirstRebuild {
            let (value, problem) = file.read()
            count = value
            if count > 0 { publish() }
            if let problem { log.record(DaemonEvent(.stateError, problem, priority: .warning)) }
        }
        guard let requested = file.takeRequest() else { return }
        count = BadgeFile.apply(requested, to: count)
        publish()
        write()
    }

    /// A delivery's `Badge=` changes the number, and the delivery carries the result. It is written once per fire
    /// (`saveIfChanged`), not once per delivery: a burst must not pay a synced write each.
    func apply(to delivery: inout Delivery) {
        onQueue()
        guard let change = delivery.notification.badge else { return }
        count = BadgeFile.apply(change, to: count)
        delivery.badge = count
        changed = true
    }

    /// Publishes and writes the number if deliveries changed it since the last call.
    func saveIfChanged() {
        onQueue()
        guard changed else { return }
        changed = false
        publish()
        write()
    }

    private func publish() {
        guard isShown, let launcher else { return }
        let count = self.count
        publishing.async { launcher.publish(count) }
    }

    private func write() {
        do {
            try file.write(count)
        } catch {
            log.record(DaemonEvent(.stateError, "Cannot record the badge number: \(error)", priority: .error))
        }
    }

    private func onQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}
