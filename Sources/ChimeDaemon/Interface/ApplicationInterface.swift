import ChimeCore
import ChimePlatform
import ChimeSystemd
import Foundation

/// `org.chime.Notifications1` at `/org/chime/Notifications1`: applications add, list and remove their own
/// notification requests, as an iOS app does with `UNUserNotificationCenter` (DESIGN.md, "The application
/// interface"). A request is validated as a file is (`BusRequest`), stored (`ApplicationRequests`) and in the
/// schedule before `Add` returns: placed into it at once (`Scheduler.place`, as a rebuild that read it would), or,
/// while a rebuild is loading, after the next rebuild; `schedule.json` holds it by the answer.
///
/// Arguments are read on the bus queue; the work is done on the scheduler's queue.
final class ApplicationInterface: @unchecked Sendable {
    static let name = "org.chime.Notifications1"
    static let path = "/org/chime/Notifications1"
    static let interface = "org.chime.Notifications1"

    enum Failure: String {
        case invalidArgument = "InvalidArgument"
        case limitExceeded = "LimitExceeded"
        case accessDenied = "AccessDenied"

        var name: String { "org.chime.Notifications1.Error.\(rawValue)" }
    }

    private let queue: DispatchQueue
    /// Where each authorized call goes first, in order: an `Add` is parsed, validated and its next fire computed here,
    /// off the scheduler's queue, so a costly request delays other requests and never a delivery.
    private let requestQueue = DispatchQueue(label: "chimed.interface.requests", qos: .utility)
    private let requests: ApplicationRequests
    private let scheduler: Scheduler
    private let rebuilder: ScheduleRebuilder
    private let badges: ApplicationBadges
    private let signals: ApplicationSignals
    private let registry: BackendRegistry
    private let reporter: ScheduleReporter
    private let clock: any WallClock
    private let environment: [String: String]
    private let log: any EventLog
    /// Kept open for the life of the daemon.
    private let quota: ApplicationRequestQuota
    // Set by `start` before the object is exported, read on the bus queue.
    private var authorization: CallerAuthorization?
    /// Served beside it on the system bus: users' instances ask it to wake the system (`WakeService`).
    var wake: WakeService?
    private var callers: CallerIdentities?

    init(
        queue: DispatchQueue, requests: ApplicationRequests, scheduler: Scheduler, rebuilder: ScheduleRebuilder,
        badges: ApplicationBadges, signals: ApplicationSignals, registry: BackendRegistry, reporter: ScheduleReporter,
        clock: any WallClock,
        environment: [String: String], log: any EventLog
    ) {
        self.badges = badges
        self.signals = signals
        self.registry = registry
        self.reporter = reporter
        self.queue = queue
        self.requests = requests
        quota = ApplicationRequestQuota(requests: requests, queue: queue)
        self.scheduler = scheduler
        self.rebuilder = rebuilder
        self.clock = clock
        self.environment = environment
        self.log = log
    }

    /// Connects to the bus at `address`, exports the object, then takes the name: a call that the name's owner
    /// receives always finds the object. When the bus closes the connection later (a message it would not take,
    /// the bus restarting), chimed says so and connects again (`reconnect`).
    /// - Parameter isSystemBus: the system instance on the system bus, where polkit decides who may do what.
    func start(address: String, isSystemBus: Bool) async throws {
        let connection = try BusConnection(address: address, label: "chimed.interface") { [weak self] in
            self?.lost(address: address, isSystemBus: isSystemBus)
        }
        authorization = CallerAuthorization(
            bus: isSystemBus ? .system(PolkitAuthority(connection: connection)) : .session, ownUID: geteuid())
        callers = CallerIdentities(connection: connection, readsSandboxes: !isSystemBus)
        try await connection.exportObject(path: Self.path) { [weak self] call in self?.received(call) }
        if isSystemBus, let wake { try await wake.export(on: connection) }
        guard try await connection.requestName(Self.name) else {
            connection.close()
            throw BusMethodError(
                name: "org.freedesktop.DBus.Error.AddressInUse", message: "\(Self.name) is owned by another process")
        }
        queue.async { self.signals.use(connection) }
    }

    /// The bus closed the connection: says so, and connects again, after 1 s and then twice as long each time it
    /// cannot (at most a minute), until it can.
    private func lost(address: String, isSystemBus: Bool) {
        queue.async { self.signals.use(nil) }
        log.record(
            DaemonEvent(
                .systemError,
                "Lost the connection to the \(isSystemBus ? "system" : "session") bus \(address): \(Self.name) is "
                    + "not served until it is back; connecting again", priority: .warning))
        Task { await reconnect(address: address, isSystemBus: isSystemBus, after: .seconds(1)) }
    }

    private func reconnect(address: String, isSystemBus: Bool, after first: Duration) async {
        var delay = first
        while true {
            try? await Task.sleep(for: delay)
            do {
                try await start(address: address, isSystemBus: isSystemBus)
                log.record(DaemonEvent(.systemError, "Serving \(Self.name) again on \(address).", priority: .notice))
                return
            } catch {
                delay = min(delay * 2, .seconds(60))
            }
        }
    }

    /// On the bus queue: reads the arguments and finds out who calls (`CallerIdentities`), then, if the caller may
    /// (`CallerAuthorization`), does the work on the scheduler's queue.
    private func received(_ call: BusMethodCall) {
        let appID: String
        let access: CallerAuthorization.Access
        // Runs on `requestQueue` (`accept`), which hands each call to the scheduler's queue in the order they came.
        let work: @Sendable (RequestContext) -> Void
        let queue = self.queue
        let onQueue = { (job: @escaping @Sendable () -> Void) -> @Sendable (RequestContext) -> Void in
            { _ in queue.async(execute: job) }
        }
        do {
            switch (call.interface, call.member) {
            case ("org.freedesktop.DBus.Introspectable", "Introspect"):
                call.reply { try $0.append(Self.introspection) }
                return
            case (Self.interface, "Add") where call.signature == "ssa{sv}a{sv}":
                let (app, id, content, trigger) = try call.read { reader in
                    (
                        try reader.readString(), try reader.readString(), try reader.readDictionary(),
                        try reader.readDictionary()
                    )
                }
                (appID, access) = (app, .manage)
                work = { self.add(call, appID: app, id: id, content: content, trigger: trigger, context: $0) }
            case (Self.interface, "GetPending") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .read)
                work = onQueue { self.getPending(call, appID: appID) }
            case (Self.interface, "RemovePending") where call.signature == "sas":
                let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
                (appID, access) = (app, .manage)
                work = onQueue { self.remove(call, appID: app, ids: ids) }
            case (Self.interface, "RemoveAllPending") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .manage)
                work = onQueue { self.remove(call, appID: appID, ids: nil) }
            case (Self.interface, "GetDelivered") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .read)
                work = onQueue { self.getDelivered(call, appID: appID) }
            case (Self.interface, "RemoveDelivered") where call.signature == "sas":
                let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
                (appID, access) = (app, .manage)
                work = onQueue { self.removeDelivered(call, appID: app, ids: ids) }
            case (Self.interface, "RemoveAllDelivered") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .manage)
                work = onQueue { self.removeDelivered(call, appID: appID, ids: nil) }
            case (Self.interface, "Acknowledge") where call.signature == "sas":
                let (app, ids) = try call.read { reader in (try reader.readString(), try reader.readStrings()) }
                (appID, access) = (app, .manage)
                work = onQueue { self.acknowledge(call, appID: app, ids: ids) }
            case (Self.interface, "SetBadge") where call.signature == "su":
                let (app, count) = try call.read { reader in (try reader.readString(), try reader.readUInt32()) }
                (appID, access) = (app, .manage)
                work = onQueue { self.setBadge(call, appID: app, count: count) }
            case (Self.interface, "GetSettings") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .read)
                work = onQueue { self.getSettings(call, appID: appID) }
            case (Self.interface, "GetBadge") where call.signature == "s":
                (appID, access) = (try call.read { try $0.readString() }, .read)
                work = onQueue { self.getBadge(call, appID: appID) }
            case (Self.interface, let member) where Self.signatures[member] != nil:
                call.reply(
                    error: "org.freedesktop.DBus.Error.InvalidArgs",
                    "\(call.member) takes (\(Self.signatures[call.member] ?? "")), not (\(call.signature))")
                return
            default:
                call.reply(
                    error: "org.freedesktop.DBus.Error.UnknownMethod",
                    "No method \(call.member) in interface \(call.interface) at \(call.path)")
                return
            }
        } catch {
            call.reply(error: "org.freedesktop.DBus.Error.InvalidArgs", "\(error)")
            return
        }
        // Every method names the application first: a name that is no desktop-file id is refused before anybody is
        // asked about the caller.
        guard ApplicationRequests.isValidAppID(appID) else {
            call.reply(
                error: Failure.invalidArgument.name,
                "Invalid app_id '\(appID)': use a desktop-file id such as org.example.Reminders.")
            return
        }
        guard let authorization, let callers else { return }
        callers.with(call.sender) { result in
            switch result.map({ authorization.verdict(of: $0, appID: appID) }) {
            case .failure(let error):
                call.reply(error: Failure.accessDenied.name, "Cannot tell who calls (\(error)); refused.")
            case .success(.refused(let reason)):
                call.reply(error: Failure.accessDenied.name, reason)
            case .success(.allowed):
                self.accept(work)
            case .success(.askPolkit):
                Task {
                    if let refusal = await authorization.refusal(
                        asking: call.sender, appID: appID, access: access,
                        interactive: call.allowsInteractiveAuthorization)
                    {
                        call.reply(error: Failure.accessDenied.name, refusal)
                    } else {
                        self.accept(work)
                    }
                }
            }
        }
    }

    /// What an `Add` is read with, taken on the scheduler's queue as the call is accepted: the zone the schedule was
    /// loaded in, which the request is placed in (`nil` while a rebuild loads, perhaps for a new zone: the zone as it
    /// is now), and the settings the rebuild would read it with.
    private struct RequestContext: Sendable {
        var installedZone: ZoneRules?
        var configuration: DaemonConfiguration
        var wakeSystemRefusal: String?
    }

    /// Hands an authorized call on, in the order calls came, without waiting anywhere: its context taken on the
    /// scheduler's queue, then `requestQueue` (where an `Add` is read), then the scheduler's queue for the work.
    private func accept(_ work: @escaping @Sendable (RequestContext) -> Void) {
        queue.async {
            let context = RequestContext(
                installedZone: self.rebuilder.isLoading ? nil : self.scheduler.installedZone,
                configuration: self.rebuilder.configuration, wakeSystemRefusal: self.rebuilder.wakeSystemRefusal)
            self.requestQueue.async { work(context) }
        }
    }

    static let signatures = [
        "Add": "ssa{sv}a{sv}", "GetPending": "s", "RemovePending": "sas", "RemoveAllPending": "s",
        "GetDelivered": "s", "RemoveDelivered": "sas", "RemoveAllDelivered": "s", "SetBadge": "su", "GetBadge": "s",
        "GetSettings": "s", "Acknowledge": "sas",
    ]

    /// On `requestQueue`: reads the request and computes its next fire, then stores and places it on the
    /// scheduler's queue.
    private func add(
        _ call: BusMethodCall, appID: String, id: String, content: [(key: String, value: BusValue)],
        trigger: [(key: String, value: BusValue)], context: RequestContext
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
            call.reply(error: Failure.invalidArgument.name, error.description)
            return
        }
        guard request.text.utf8.count <= ApplicationRequests.maximumRequestSize else {
            call.reply(
                error: Failure.limitExceeded.name,
                "The request is \(InputLimits.grouped(request.text.utf8.count)) bytes as a notification file; "
                    + "at most \(InputLimits.size(ApplicationRequests.maximumRequestSize)) are taken.")
            return
        }
        let now = clock.now()
        let next = request.notification.trigger.nextOccurrence(
            after: now, history: DeliveryHistory(firstSeen: now), systemZone: systemZone)
        queue.async {
            self.store(call, request, appID: appID, id: id, next: next, now: now, zone: systemZone)
        }
    }

    /// On the scheduler's queue: stores the request (or removes the id's, when nothing is ahead) and places it in the
    /// schedule, or has a rebuild read it.
    private func store(
        _ call: BusMethodCall, _ request: BusRequest, appID: String, id: String, next: Date?, now: Date, zone: ZoneRules
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
            call.reply(error: Failure.limitExceeded.name, refusal)
            return
        }
        let scheduleID = ApplicationRequests.scheduleID(appID: appID, id: id)
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
            call.reply(error: "org.freedesktop.DBus.Error.Failed", "Cannot store the request: \(error)")
            return
        }
        let answer = next.map { $0.epochMicroseconds } ?? -1
        // While a rebuild is loading, it may have read the requests before this one: the next rebuild reads it. So
        // does one after a rebuild that changed the zone since the request was read.
        guard !rebuilder.isLoading, scheduler.installedZone?.hasSameRules(as: zone) ?? false else {
            rebuilder.rebuild(reason: "request of \(appID)") { call.reply { try $0.append(.int64(answer)) } }
            return
        }
        var placed = answer
        // A request placed anew changes no listed entry; one that replaces another may.
        let isNew = !scheduler.isPinned(scheduleID)
        if next == nil {
            scheduler.withdraw([scheduleID])
        } else if let date = scheduler.place(
            LoadedNotification(application: request.notification, source: requests.path(appID: appID, id: id)))
        {
            // The schedule's own answer: a request added again keeps its first sighting (Every='s anchor).
            placed = date.epochMicroseconds
            if isNew {
                reporter.requestPlaced(due: date) { [placed] in call.reply { try $0.append(.int64(placed)) } }
                return
            }
        }
        reporter.requestsChanged { [placed] in call.reply { try $0.append(.int64(placed)) } }
    }

    private func getPending(_ call: BusMethodCall, appID: String) {
        let prefix = ApplicationRequests.scheduleID(appID: appID, id: "")
        let pending = scheduler.pending(idPrefix: prefix).map { item in
            let (content, trigger) = BusRequestEntries.of(fileAt: item.source)
            return (
                id: String(item.id.dropFirst(prefix.count)), content: content, trigger: trigger,
                next: item.next.epochMicroseconds
            )
        }.sorted { $0.id < $1.id }
        call.reply { writer in
            try writer.openContainer("a", contents: "(sa{sv}a{sv}x)")
            for request in pending {
                try writer.openContainer("r", contents: "sa{sv}a{sv}x")
                try writer.append(request.id)
                try writer.append(dictionary: request.content)
                try writer.append(dictionary: request.trigger)
                try writer.append(.int64(request.next))
                try writer.closeContainer()
            }
            try writer.closeContainer()
        }
    }

    /// The application's notifications a backend still shows (the desktop's bubbles), oldest first: id, content
    /// and the occurrence's time.
    private func getDelivered(_ call: BusMethodCall, appID: String) {
        let shown = ShownRequests(backends: registry.showing, appID: appID)
        Task {
            let delivered = await shown.list()
            call.reply { writer in
                try writer.openContainer("a", contents: "(sa{sv}x)")
                for notification in delivered {
                    try writer.openContainer("r", contents: "sa{sv}x")
                    try writer.append(notification.id)
                    try writer.append(dictionary: notification.content)
                    try writer.append(.int64(notification.fire))
                    try writer.closeContainer()
                }
                try writer.closeContainer()
            }
        }
    }

    /// Closes the bubbles of the application's notifications `ids` (all of them for `nil`); answers once they are
    /// closed.
    private func removeDelivered(_ call: BusMethodCall, appID: String, ids: [String]?) {
        let shown = ShownRequests(backends: registry.showing, appID: appID)
        Task {
            await shown.close(ids)
            call.reply()
        }
    }

    /// Stops the repeats (`Repeat=`) of the application's requests `ids`, as the user acknowledging them would;
    /// ids that are not repeating are ignored.
    private func acknowledge(_ call: BusMethodCall, appID: String, ids: [String]) {
        let scheduleIDs = Set(ids.map { ApplicationRequests.scheduleID(appID: appID, id: $0) })
        scheduler.acknowledge(scheduleIDs, by: "the application \(appID)")
        call.reply()
    }

    /// Sets the application's badge: its launcher entry's number, not chime's.
    private func setBadge(_ call: BusMethodCall, appID: String, count: UInt32) {
        do {
            try badges.set(Int(min(count, 1_000_000_000)), for: appID)
            call.reply()
        } catch {
            call.reply(error: "org.freedesktop.DBus.Error.Failed", "Cannot record the badge number: \(error)")
        }
    }

    private func getBadge(_ call: BusMethodCall, appID: String) {
        let count = UInt32(clamping: badges.count(of: appID))
        call.reply { try $0.append(.uint32(count)) }
    }

    /// What may be presented (chimed.conf's `[Presentation]`), where a request without `Deliver=` goes, and the
    /// desktop's notification server as chimed sees it: the settings an iOS app reads with
    /// `getNotificationSettings`.
    private func getSettings(_ call: BusMethodCall, appID: String) {
        let configuration = rebuilder.configuration
        var settings: [(key: String, value: BusValue)] = [
            ("alert", .boolean(configuration.presentation.alert)),
            ("sound", .boolean(configuration.presentation.sound)),
            ("badge", .boolean(configuration.presentation.badge)),
            ("backends", .strings(rebuilder.defaultBackends)),
        ]
        let desktops = registry.showing
        Task {
            for desktop in desktops {
                if let server = await desktop.describe() { settings.append(("desktop", .string(server))) }
            }
            call.reply { [settings] in try $0.append(dictionary: settings) }
        }
    }

    private func remove(_ call: BusMethodCall, appID: String, ids: [String]?) {
        let removing = ids ?? requests.ids(appID: appID)
        guard requests.remove(appID: appID, ids: removing) else {
            call.reply()
            return
        }
        quota.removed(removing, appID: appID)
        guard !rebuilder.isLoading else {
            rebuilder.rebuild(reason: "request of \(appID)") { call.reply() }
            return
        }
        scheduler.withdraw(removing.map { ApplicationRequests.scheduleID(appID: appID, id: $0) })
        reporter.requestsChanged { call.reply() }
    }
}
