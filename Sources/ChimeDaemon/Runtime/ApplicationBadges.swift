import ChimeCore
import Foundation

/// The applications' badge numbers (the per-app badge of the application interface): each kept in the state
/// directory beside the application's requests (`apps/APP_ID/badge`), changed by `SetBadge` and by the `Badge=` of
/// the application's own requests, and shown on its launcher entry (`application://APP_ID.desktop`) unless
/// chimed.conf's `[Presentation] Badge=no`. chime's own badge (`InstanceBadge`) is not touched by them.
///
/// Bound to the scheduler's queue when given one (checked). Publishing goes through a queue of its own, since
/// connecting to the session bus must not hold up a fire.
final class ApplicationBadges: @unchecked Sendable {
    private let queue: DispatchQueue?
    private let requests: ApplicationRequests
    private let environment: [String: String]
    private let log: any EventLog
    /// chimed.conf's `[Presentation] Badge=`.
    private var isShown = true
    /// The numbers read or set so far.
    private var counts: [String: Int] = [:]
    private var changed: Set<String> = []
    private var launchers: [String: UnityLauncherBadge] = [:]
    private let publishing = DispatchQueue(label: "chimed.app-badges", qos: .utility)

    init(requests: ApplicationRequests, environment: [String: String], log: any EventLog, queue: DispatchQueue? = nil) {
        self.queue = queue
        self.requests = requests
        self.environment = environment
        self.log = log
    }

    /// Takes chimed.conf's `[Presentation] Badge=`: whether the numbers are shown on launchers.
    func configure(isShown: Bool) {
        onQueue()
        self.isShown = isShown
    }

    /// `appID`'s number now.
    func count(of appID: String) -> Int {
        onQueue()
        if let count = counts[appID] { return count }
        let (count, problem) = file(of: appID).read()
        if let problem { log.record(DaemonEvent(.stateError, problem, priority: .warning)) }
        counts[appID] = count
        return count
    }

    /// Sets `appID`'s number, stores it and shows it.
    func set(_ count: Int, for appID: String) throws {
        onQueue()
        counts[appID] = max(count, 0)
        try file(of: appID).write(max(count, 0))
        publish(appID)
    }

    /// The `Badge=` of `appID`'s request changes that application's number, and the delivery carries the result.
    func apply(to delivery: inout Delivery, of appID: String) {
        onQueue()
        guard let change = delivery.notification.badge else { return }
        let count = BadgeFile.apply(change, to: count(of: appID))
        counts[appID] = count
        delivery.badge = count
        changed.insert(appID)
    }

    /// Stores and shows the numbers deliveries changed since the last call (once per fire).
    func saveIfChanged() {
        onQueue()
        for appID in changed.sorted() {
            do {
                try file(of: appID).write(counts[appID] ?? 0)
            } catch {
                log.record(
                    DaemonEvent(.stateError, "Cannot record the badge number of \(appID): \(error)", priority: .error))
            }
            publish(appID)
        }
        changed = []
    }

    private func file(of appID: String) -> BadgeFile {
        BadgeFile(stateDirectory: requests.directory + "/" + appID)
    }

    private func publish(_ appID: String) {
        guard isShown else { return }
        let launcher = launchers[appID] ?? makeLauncher(appID)
        let count = counts[appID] ?? 0
        publishing.async { launcher.publish(count) }
    }

    private func makeLauncher(_ appID: String) -> UnityLauncherBadge {
        let log = self.log
        let launcher = UnityLauncherBadge(
            desktopEntry: appID, environment: environment,
            onFailure: { reason in
                log.record(
                    DaemonEvent(
                        .systemError, "Cannot publish the badge of \(appID) to launchers: \(reason)",
                        priority: .warning))
            })
        launchers[appID] = launcher
        return launcher
    }

    private func onQueue() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
    }
}
