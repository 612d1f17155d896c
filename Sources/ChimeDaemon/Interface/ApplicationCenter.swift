import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// What the application interface does for an application, as `UNUserNotificationCenter` is what an iOS app's calls
/// reach: its requests added (read as a file is, within its quota, stored, and in the schedule before the answer),
/// listed, removed and acknowledged; its shown notifications listed and closed; its badge; its settings. It never
/// sees a bus message: `ApplicationInterface` reads each call, asks here, and replies with the answer.
///
/// Calls are taken in the order they come, without waiting anywhere: each one's context on the scheduler's queue,
/// then `requestQueue` (where an `Add` is read and its next fire computed, off the scheduler's queue, so that a costly
/// request delays other requests and never a delivery), then the scheduler's queue for the work. Answers are given on
/// the scheduler's queue, or from a task for what a backend is asked.
final class ApplicationCenter: @unchecked Sendable {
    /// Why a call is refused: the interface's error names (`org.chime.Notifications1.Error.*`, DESIGN.md) and a
    /// failure of chimed's own.
    enum Refusal: Error, Equatable {
        case invalidArgument(String)
        case limitExceeded(String)
        case failed(String)
    }

    /// A pending request as `GetPending` lists it: its id, its content and trigger as `Add` takes them, and its next
    /// fire.
    struct Pending: Sendable {
        var id: String
        var content: BusRequestEntries.Entries
        var trigger: BusRequestEntries.Entries
        var next: Date
    }

    /// A notification a backend shows, as `GetDelivered` lists it.
    typealias Shown = ShownRequests.Shown

    /// What an `Add` is read with, taken on the scheduler's queue as the call is taken: the zone the schedule was
    /// loaded in, which the request is placed in (`nil` while a rebuild loads, perhaps for a new zone: the zone as it
    /// is now), and the settings the rebuild would read it with.
    private struct Context: Sendable {
        var installedZone: ZoneRules?
        var configuration: DaemonConfiguration
        var wakeSystemRefusal: String?
    }

    private let queue: DispatchQueue
    private let requestQueue = DispatchQueue(label: "chimed.interface.requests", qos: .utility)
    private let requests: ApplicationRequests
    private let quota: ApplicationRequestQuota
    private let scheduler: Scheduler
    private let rebuilder: any RequestRebuilding
    private let reporter: any RequestReporting
    private let badges: ApplicationBadges
    private let registry: BackendRegistry
    private let clock: any WallClock
    private let environment: [String: String]
    /// Where an application's notification stops ringing when it removes or acknowledges it.
    private let sounds: DeliverySounds?

    init(
        queue: DispatchQueue, requests: ApplicationRequests, scheduler: Scheduler, rebuilder: any RequestRebuilding,
        reporter: any RequestReporting, badges: ApplicationBadges, sounds: DeliverySounds? = nil,
        registry: BackendRegistry, clock: any WallClock, environment: [String: String]
    ) {
        self.queue = queue
        self.sounds = sounds
        self.requests = requests
        quota = ApplicationRequestQuota(requests: requests, queue: queue)
        self.scheduler = scheduler
        self.rebuilder = rebuilder
        self.reporter = reporter
        self.badges = badges
        self.registry = registry
        self.clock = clock
        self.environment = environment
    }

    /// Adds or replaces the request `id` of `appID`: `answer` gets its next fire, `nil` when nothing is ahead (and
    /// nothing is kept), or why it was refused (and nothing changed).
    func add(
        appID: String, id: String, content: BusRequestEntries.Entries, trigger: BusRequestEntries.Entries,
        answer: @escaping @Sendable (Result<Date?, Refusal>) -> Void
    ) {
        inOrder { context in
            self.read(appID: appID, id: id, content: content, trigger: trigger, context: context, answer: answer)
        }
    }

    /// The application's pending requests, by id.
    func pending(appID: String, answer: @escaping @Sendable ([Pending]) -> Void) {
        onQueueInOrder {
            let prefix = ApplicationRequests.scheduleID(appID: appID, id: "")
            let pending = self.scheduler.pending(idPrefix: prefix).map { item in
                let (content, trigger) = BusRequestEntries.of(fileAt: item.source)
                return Pending(
                    id: String(item.id.dropFirst(prefix.count)), content: content, trigger: trigger,
                    next: item.next)
            }
            answer(pending.sorted { $0.id < $1.id })
        }
    }

    /// Removes the application's requests `ids` (all of them for `nil`); `done` once the schedule and
    /// `schedule.json` no longer hold them.
    func removePending(appID: String, ids: [String]?, done: @escaping @Sendable () -> Void) {
        onQueueInOrder {
            let removing = ids ?? self.requests.ids(appID: appID)
            guard self.requests.remove(appID: appID, ids: removing) else { return done() }
            self.quota.removed(removing, appID: appID)
            guard !self.rebuilder.isLoading else {
                return self.rebuilder.rebuild(reason: "request of \(appID)", then: done)
            }
            self.scheduler.withdraw(removing.map { ApplicationRequests.scheduleID(appID: appID, id: $0) })
            self.reporter.requestsChanged(then: done)
        }
    }

    /// The application's notifications a backend still shows (the desktop's bubbles), oldest first: id, content
    /// and the occurrence's time.
    func delivered(appID: String, answer: @escaping @Sendable ([Shown]) -> Void) {
        onQueueInOrder {
            let shown = ShownRequests(backends: self.registry.showing, appID: appID)
            Task { answer(await shown.list()) }
        }
    }

    /// Closes the bubbles of the application's notifications `ids` (all of them for `nil`); `done` once they are
    /// closed.
    func removeDelivered(appID: String, ids: [String]?, done: @escaping @Sendable () -> Void) {
        onQueueInOrder {
            let shown = ShownRequests(backends: self.registry.showing, appID: appID)
            if let ids {
                self.sounds?.stop(Set(ids.map { ApplicationRequests.scheduleID(appID: appID, id: $0) }))
            } else {
                self.sounds?.stop(prefix: ApplicationRequests.scheduleID(appID: appID, id: ""))
            }
            Task {
                await shown.close(ids)
                done()
            }
        }
    }

    /// Stops the repeats (`Repeat=`) of the application's requests `ids`, as the user acknowledging them would;
    /// ids that are not repeating are ignored.
    func acknowledge(appID: String, ids: [String], done: @escaping @Sendable () -> Void) {
        onQueueInOrder {
            let scheduleIDs = Set(ids.map { ApplicationRequests.scheduleID(appID: appID, id: $0) })
            self.sounds?.stop(scheduleIDs)
            self.scheduler.acknowledge(scheduleIDs, by: "the application \(appID)")
            done()
        }
    }

    /// Sets the application's badge: its launcher entry's number, not chime's.
    func setBadge(appID: String, count: UInt32, answer: @escaping @Sendable (Result<Void, Refusal>) -> Void) {
        onQueueInOrder {
            do {
                try self.badges.set(Int(min(count, 1_000_000_000)), for: appID)
                answer(.success(()))
            } catch {
                answer(.failure(.failed("Cannot record the badge number: \(error)")))
            }
        }
    }

    func badge(appID: String, answer: @escaping @Sendable (UInt32) -> Void) {
        onQueueInOrder { answer(UInt32(clamping: self.badges.count(of: appID))) }
    }

    /// What may be presented (chimed.conf's `[Presentation]`), where a request without `Deliver=` goes, and the
    /// desktop's notification server as chimed sees it: the settings an iOS app reads with
    /// `getNotificationSettings`.
    func settings(appID: String, answer: @escaping @Sendable (BusRequestEntries.Entries) -> Void) {
        onQueueInOrder {
            let presentation = self.rebuilder.configuration.presentation
            var settings: BusRequestEntries.Entries = [
                ("alert", .boolean(presentation.alert)), ("sound", .boolean(presentation.sound)),
                ("badge", .boolean(presentation.badge)), ("backends", .strings(self.rebuilder.defaultBackends)),
            ]
            let desktops = self.registry.showing
            Task {
                for desktop in desktops {
                    if let server = await desktop.describe() { settings.append(("desktop", .string(server))) }
                }
                answer(settings)
            }
        }
    }

    /// Takes a call in order: its context on the scheduler's queue, then `work` on `requestQueue`.
    private func inOrder(_ work: @escaping @Sendable (Context) -> Void) {
        queue.async {
            let context = Context(
                installedZone: self.rebuilder.isLoading ? nil : self.scheduler.installedZone,
                configuration: self.rebuilder.configuration, wakeSystemRefusal: self.rebuilder.wakeSystemRefusal)
            self.requestQueue.async { work(context) }
        }
    }

    /// Takes a call in order, for `work` on the scheduler's queue.
    private func onQueueInOrder(_ work: @escaping @Sendable () -> Void) {
        let queue = self.queue
        inOrder { _ in queue.async(execute: work) }
    }

    /// On `requestQueue`: reads the request and computes its next fire, then stores and places it on the
    /// scheduler's queue.
    private func read(
        appID: String, id: String, content: BusRequestEntries.Entries, trigger: BusRequestEntries.Entries,
        context: Context, answer: @escaping @Sendable (Result<Date?, Refusal>) -> Void
    ) {
        dispatchPrecondition(condition: .onQueue(requestQueue))
        let systemZone = context.installedZone ?? LocalZone.resolve(tz: environment["TZ"])
        var loader = NotificationLoader(systemZone: systemZone, zones: .system)
        // Refused here as the rebuild would refuse it, rather than taken and then dropped.
        loader.wakeSystemRefusal = context.wakeSystemRefusal
        loader.minimumInterval = context.configuration.minimumInterval
        loader = ApplicationRequests.restricting(loader)
        let request: BusRequest
        do {
            request = try BusRequest(appID: appID, id: id, content: content, trigger: trigger, loader: loader)
        } catch {
            return answer(.failure(.invalidArgument(error.description)))
        }
        guard request.text.utf8.count <= ApplicationRequests.maximumRequestSize else {
            return answer(
                .failure(
                    .limitExceeded(
                        "The request is \(InputLimits.grouped(request.text.utf8.count)) bytes as a notification file; "
                            + "at most \(InputLimits.size(ApplicationRequests.maximumRequestSize)) are taken.")))
        }
        let now = clock.now()
        let next = request.notification.trigger.nextOccurrence(
            after: now, history: DeliveryHistory(firstSeen: now), systemZone: systemZone)
        queue.async {
            self.store(request, appID: appID, id: id, next: next, now: now, zone: systemZone, answer: answer)
        }
    }

    /// On the scheduler's queue: stores the request (or removes the id's, when nothing is ahead) and places it in the
    /// schedule, or has a rebuild read it.
    private func store(
        _ request: BusRequest, appID: String, id: String, next: Date?, now: Date, zone: ZoneRules,
        answer: @escaping @Sendable (Result<Date?, Refusal>) -> Void
    ) {
        dispatchPrecondition(condition: .onQueue(queue))
        let configuration = rebuilder.configuration
        let limits = ApplicationRequestQuota.Limits(
            requestsPerApp: configuration.maximumRequestsPerApp, requests: configuration.maximumRequests,
            bytes: configuration.maximumRequestBytes)
        // A request with nothing ahead is not kept: it takes nothing of the quota.
        if next != nil,
            let refusal = quota.refusal(adding: id, bytes: request.text.utf8.count, to: appID, limits: limits, now: now)
        {
            return answer(.failure(.limitExceeded(refusal)))
        }
        do {
            if next == nil {
                // Nothing ahead: nothing is kept, and an earlier request of the id is replaced by nothing.
                requests.remove(appID: appID, ids: [id])
                quota.removed([id], appID: appID)
            } else {
                try requests.store(request.text, appID: appID, id: id)
                quota.stored(id, bytes: request.text.utf8.count, appID: appID)
            }
        } catch {
            return answer(.failure(.failed("Cannot store the request: \(error)")))
        }
        let unplaced = next
        // While a rebuild is loading, it may have read the requests before this one: the next rebuild reads it. So
        // does one after a rebuild that changed the zone since the request was read.
        guard !rebuilder.isLoading, scheduler.installedZone?.hasSameRules(as: zone) ?? false else {
            return rebuilder.rebuild(reason: "request of \(appID)") { answer(.success(unplaced)) }
        }
        let scheduleID = ApplicationRequests.scheduleID(appID: appID, id: id)
        // A request placed anew changes no listed entry; one that replaces another may.
        let isNew = !scheduler.isPinned(scheduleID)
        guard next != nil else {
            scheduler.withdraw([scheduleID])
            return reporter.requestsChanged { answer(.success(unplaced)) }
        }
        guard
            let date = scheduler.place(
                LoadedNotification(application: request.notification, source: requests.path(appID: appID, id: id)))
        else {
            return reporter.requestsChanged { answer(.success(unplaced)) }
        }
        // The schedule's own answer: a request added again keeps its first sighting (Every='s anchor).
        if isNew {
            reporter.requestPlaced(due: date) { answer(.success(date)) }
        } else {
            reporter.requestsChanged { answer(.success(date)) }
        }
    }
}
