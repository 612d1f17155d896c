import CChimeShims
import ChimeCore
import ChimeSystemd
import Foundation

/// The running `chimed`: wires the scheduler to the real clock and timer, signals, the service manager, the
/// snapshot for `chimectl`, and rebuilds the whole schedule on start and on every SIGHUP.
///
/// All scheduling state lives on one serial queue; loading a new schedule runs on another, so a slow load never
/// delays a fire.
public final class Daemon: @unchecked Sendable {
    public let options: DaemonOptions
    private let environment: [String: String]
    private let queue = DispatchQueue(label: "chimed.scheduler", qos: .userInteractive)
    private let loadQueue = DispatchQueue(label: "chimed.load", qos: .utility)
    private let notifyQueue = DispatchQueue(label: "chimed.notify", qos: .utility)
    /// Whether a status and snapshot refresh is already scheduled, touched only on `queue`.
    private var refreshPending = false
    /// The badge number; touched only on `queue`.
    private let badge: InstanceBadge
    private let clock = SystemWallClock()
    private let notifier = SystemdNotifier()
    private let log: any EventLog
    private let dispatcher: Dispatcher
    private let scheduler: Scheduler
    private let snapshot: SnapshotWriter
    private var signalSources: [any DispatchSourceSignal] = []
    private var watchdog: (any DispatchSourceTimer)?
    private var monitors: [any Sendable] = []
    /// Held from `run()` to the end of the process: no second chimed on the same state and runtime directories.
    private var instanceLock: InstanceLock?

    /// Rebuild bookkeeping, touched only on `queue`.
    private var isRebuilding = false
    private var rebuildPending = false
    private var rebuildCount = 0
    /// The generators' part of the installed schedule, lent to the next rebuild.
    private var generatorReuse: GeneratorReuse?
    private var lastRebuild: Date?
    /// When the load of the last finished rebuild began: `chimectl` waits for one that began after its request.
    private var lastLoadStarted: Date?
    private var lastError: String?
    private var problems: [String] = []
    private var isStopping = false
    /// chimed.conf as last loaded, touched only on `queue`.
    private var configuration = DaemonConfiguration()
    private let registry: BackendRegistry
    /// The requests of `chimectl add`; those with nothing left to fire are removed after each fire and rebuild.
    private let addedRequests: AddedRequests

    /// - Parameter factories: how backends are made from chimed.conf's settings.
    public init(
        options: DaemonOptions, environment: [String: String], factories: BackendFactories = BackendFactories(),
        log: any EventLog
    ) {
        // As many malloc arenas as cores, not glibc's eight per core: with a rebuild a second, each thread a load
        // runs on otherwise keeps the freed memory of past loads in an arena of its own, and the RSS at rest with
        // 100,000 notifications grows to twice the schedule over minutes (docs/reliability.md, the soak).
        _ = chime_limit_malloc_arenas(Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        self.options = options
        self.environment = environment
        self.log = log
        dispatcher = Dispatcher(backends: [], defaultBackends: ["journal"], clock: SystemWallClock(), log: log)
        scheduler = Scheduler(
            clock: clock, timer: DispatchWallTimer(queue: queue), dispatcher: dispatcher, log: log,
            store: FileHistoryStore(directory: options.stateDirectory))
        let answers = NotificationAnswers(
            queue: queue, scheduler: scheduler, clock: clock, log: log, environment: environment)
        registry = BackendRegistry(
            factories: factories,
            context: BackendContext(log: log, clock: clock, responder: answers, environment: environment))
        snapshot = SnapshotWriter(path: options.snapshotPath)
        badge = InstanceBadge(stateDirectory: options.stateDirectory, environment: environment, log: log)
        let added = AddedRequests(directory: options.addedDirectory)
        addedRequests = added
        scheduler.afterFire = { [weak self] in self?.scheduleChanged() }
        scheduler.pinnedSource = { added.contains($0) }
        scheduler.willDeliver = { [weak self] delivery in self?.present(&delivery) }
    }

    /// Where notifications come from, in order of precedence for the same id: files, then generators, then the
    /// requests of `chimectl add` (`DaemonOptions.addedDirectory`).
    ///
    /// Being last, a runtime request never shadows a file or a generator's notification: one with the same id is
    /// dropped with a warning, as any later duplicate is. Drop-ins of the configuration directories do not apply
    /// to runtime requests, which are whole files of their own.
    public static func sources(
        options: DaemonOptions, environment: [String: String],
        configuration: DaemonConfiguration = DaemonConfiguration(), generatorReuse: GeneratorReuse? = nil
    ) -> [any ScheduleSource] {
        [
            NotificationDirectorySource(directories: options.configDirectories),
            GeneratorSource(
                directories: options.configDirectories, environment: environment,
                timeout: configuration.generatorTimeout, outputLimit: configuration.generatorOutputLimit,
                reuse: generatorReuse),
            NotificationDirectorySource(directories: [options.addedDirectory], role: "directory of runtime requests"),
        ]
    }

    /// Starts everything and never returns: the process ends on SIGTERM/SIGINT (exit 0) or a fatal start-up error
    /// (exit 1), such as another chimed already running on the same directories.
    public func run() -> Never {
        do {
            instanceLock = try InstanceLock(options: options)
        } catch {
            FileHandle.standardError.write(Data("chimed: \(error)\n".utf8))
            exit(1)
        }
        // A finished request's file is removed once its delivery is done (`AddedRequests`).
        let queue = self.queue
        scheduler.pinnedDeliveryFinished = { [weak self] in
            guard let self else { return }
            queue.async { self.scheduleChanged() }
        }
        installSignalHandlers()
        queue.async { self.startWatchdog() }
        queue.async { self.rebuild(reason: "start") }
        dispatchMain()
    }

    /// Watches for wall-clock changes and for changes of the system zone (`/etc/localtime`): the first makes
    /// the scheduler account for what was jumped over, and both rebuild the schedule. A monitor that cannot start
    /// is reported and the daemon goes on without it.
    public func watchClockAndTimeZone() {
        do {
            let clockMonitor = try ClockChangeMonitor(queue: queue) { [weak self] in self?.clockChanged() }
            clockMonitor.start()
            monitors.append(clockMonitor)
        } catch {
            log.record(
                DaemonEvent(.systemError, "Cannot watch for clock changes (\(error)), ignoring", priority: .warning))
        }
        guard environment["TZ"] == nil else { return }
        do {
            let zoneMonitor = try TimeZoneChangeMonitor(queue: queue) { [weak self] in
                self?.rebuild(reason: "time zone change")
            }
            zoneMonitor.start()
            monitors.append(zoneMonitor)
        } catch {
            log.record(
                DaemonEvent(
                    .systemError, "Cannot watch /etc/localtime for zone changes (\(error)), ignoring",
                    priority: .warning))
        }
    }

    /// On the scheduler's queue: the wall clock was set.
    private func clockChanged() {
        scheduler.clockChanged()
        rebuild(reason: "clock change")
    }

    // MARK: Rebuilds

    /// Requests a rebuild; while one is loading, further requests collapse into one more.
    public func requestRebuild(reason: String) {
        queue.async { self.rebuild(reason: reason) }
    }

    private func rebuild(reason: String) {
        guard !isStopping else { return }
        if isRebuilding {
            rebuildPending = true
            return
        }
        isRebuilding = true
        if rebuildCount > 0 {
            notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())\nSTATUS=Reloading (\(reason))…")
        }
        let options = self.options
        let environment = self.environment
        let tz = environment["TZ"]
        let clock = self.clock
        let directories = options.configDirectories
        let generatorReuse = self.generatorReuse
        loadQueue.async {
            let started = clock.now()
            let configuration = DaemonConfiguration.load(directories: directories)
            var loader = ScheduleLoader(
                sources: Self.sources(
                    options: options, environment: environment, configuration: configuration,
                    generatorReuse: generatorReuse),
                maximumNotifications: configuration.maximumNotifications)
            loader.knownBackends = configuration.backendNames
            let zone = LocalZone.resolve(tz: tz)
            let result = Result { () throws(ScheduleLoadError) in try loader.load(systemZone: zone) }
            // Named by some notification's Deliver=; the defaults are added where they are known, on the queue.
            var named = Set<String>()
            for entry in (try? result.get())?.notifications ?? [] {
                for name in entry.notification.backends { named.insert(name) }
            }
            let namedBackends = named
            self.queue.async {
                self.apply(configuration, namedBackends: namedBackends)
                self.finishRebuild(result, reason: reason, started: started)
            }
        }
    }

    /// The backends for notifications without `Deliver=`: `--deliver`, chimed.conf's, or the journal.
    private var defaultBackends: [String] {
        options.defaultBackends ?? configuration.defaultBackends ?? ["journal"]
    }

    /// Takes chimed.conf as loaded: its problems are logged, the backends rebuilt where their settings changed,
    /// and the presentation settings and each backend's peer logged.
    /// - Parameter namedBackends: the backends notifications name in `Deliver=`: with the default ones, those
    ///   whose peer is described in the log (a desktop nobody delivers to is not worth a line at every start).
    private func apply(_ loaded: DaemonConfiguration, namedBackends: Set<String>) {
        configuration = loaded
        badge.configure(desktopEntry: loaded.desktop.desktopEntry, isShown: loaded.presentation.badge)
        for problem in loaded.diagnostics { log.record(Self.configEvent(problem)) }
        let backends = registry.backends(for: loaded)
        let names = Set(backends.map(\.name))
        for name in defaultBackends where !names.contains(name) {
            log.record(
                DaemonEvent(
                    .configError, "The default backends name '\(name)', which is no backend; deliveries to it fail.",
                    priority: .warning))
        }
        if rebuildCount == 0, defaultBackends.contains("journal"), !JournalBackend.isJournalAvailable {
            log.record(
                DaemonEvent(
                    .systemError,
                    "No journal listens (\(JournalBackend.socketPath) is missing): deliveries to the journal backend "
                        + "fail. Start systemd-journald, or deliver elsewhere with --deliver= or chimed.conf's "
                        + "[Daemon] Deliver=.", priority: .warning))
        }
        dispatcher.reconfigure(backends: backends, defaultBackends: defaultBackends)
        let presentation = "Presentation: \(loaded.presentation)."
        let inUse = namedBackends.union(defaultBackends)
        let log = self.log
        Task.detached(executorPreference: DaemonExecutor.shared) {
            var lines = [presentation]
            for backend in backends where inUse.contains(backend.name) {
                if let description = await backend.describe() { lines.append("\(backend.name): \(description)") }
            }
            log.record(DaemonEvent(.backends, lines.joined(separator: " ")))
        }
    }

    private func finishRebuild(
        _ result: Result<LoadedSchedule, ScheduleLoadError>, reason: String, started: Date
    ) {
        isRebuilding = false
        lastLoadStarted = started
        let first = rebuildCount == 0
        rebuildCount += 1
        switch result {
        case .success(let loaded):
            badge.takeStoredAndRequested(isFirstRebuild: first)
            scheduler.install(loaded)
            generatorReuse = GeneratorReuse(loaded)
            badge.saveIfChanged()
            lastRebuild = clock.now()
            problems = loaded.problems.map(\.description)
            lastError = loaded.problems.first { $0.severity == .error }?.description
            for problem in loaded.problems { log.record(Self.configEvent(problem)) }
            log.record(
                DaemonEvent(
                    first ? .started : .reloaded,
                    "\(first ? "Started" : "Reloaded (\(reason))"): \(loaded.notifications.count) notification(s) "
                        + "loaded, \(scheduler.scheduledCount) scheduled, \(loaded.filesWithErrors) file(s) with errors.",
                    fields: [
                        ("CHIME_LOADED", String(loaded.notifications.count)),
                        ("CHIME_SCHEDULED", String(scheduler.scheduledCount)),
                        ("CHIME_ERRORS", String(loaded.filesWithErrors)),
                    ]))
        case .failure(let error):
            lastError = error.message
            log.record(
                DaemonEvent(
                    .configError, "Loading the schedule failed: \(error.message); keeping the previous schedule.",
                    fields: [("CHIME_ERROR", error.message)]))
        }
        // Ready first: the snapshot for chimectl (which waits for it) is written right after, off the critical path.
        notify("READY=1\nSTATUS=\(statusText())")
        refreshSnapshot()
        // The previous schedule and the load's working memory are freed now: give the pages back to the system,
        // or the process keeps the high-water mark of every rebuild (malloc keeps freed memory for reuse). On the
        // snapshot's queue, after the snapshot, so as to delay neither it nor a fire.
        snapshot.afterPendingWrite { _ = chime_release_free_memory() }
        if rebuildPending {
            rebuildPending = false
            rebuild(reason: "coalesced requests")
        }
    }

    static func configEvent(_ problem: UnitFileDiagnostic) -> DaemonEvent {
        var fields: [(name: String, value: String)] = [("CHIME_FILE", problem.location.file)]
        if let line = problem.location.line { fields.append(("CHIME_LINE", String(line))) }
        if let id = Self.id(ofFile: problem.location.file) { fields.append(("CHIME_ID", id)) }
        return DaemonEvent(
            .configError, problem.description, fields: fields, priority: problem.severity == .error ? .error : .warning)
    }

    private static func id(ofFile path: String) -> String? {
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard name.hasSuffix(".notification") else { return nil }
        return String(name.dropLast(".notification".count))
    }

    // MARK: Status, snapshot, service manager

    /// `STATUS=`: `12 scheduled; next: standup at Mon 2026-11-30 09:55:00 CET`.
    func statusText() -> String {
        var text = "\(scheduler.scheduledCount) scheduled"
        if let next = scheduler.nextUp {
            text += "; next: \(next.id) at \(Timestamp.format(next.date, zone: next.zone) ?? "?")"
        } else {
            text += "; nothing due"
        }
        if badge.count > 0 { text += "; badge: \(badge.count)" }
        if let lastError { text += "; last error: \(lastError)" }
        return text
    }

    // MARK: Presentation

    /// On the scheduler's queue, for each delivery: strips what chimed.conf's `[Presentation]` does not allow, and
    /// applies `Badge=`.
    private func present(_ delivery: inout Delivery) {
        configuration.presentation.strip(&delivery)
        badge.apply(to: &delivery)
    }

    /// Called after every fire: the badge is written, and the status line and snapshot follow the schedule, at most
    /// every `refreshInterval` while fires come fast (one update after a burst, not one per fire).
    func scheduleChanged() {
        badge.saveIfChanged()
        guard !refreshPending else { return }
        refreshPending = true
        queue.asyncAfter(deadline: .now() + Self.refreshInterval) { [weak self] in
            guard let self else { return }
            refreshPending = false
            notify("STATUS=\(statusText())")
            refreshSnapshot()
        }
    }

    static let refreshInterval = DispatchTimeInterval.milliseconds(100)

    /// How many of the soonest notifications (and of those with nothing left to fire) `schedule.json` lists; the
    /// requests of `chimectl add` are listed however many there are. Rewritten after fires, the file must stay
    /// small whatever the size of the schedule.
    static let listedLimit = 1_000

    private func refreshSnapshot() {
        let status = scheduler.status(limit: Self.listedLimit)
        // What has fired is recorded in the state before this runs: the request can go.
        if !status.finishedPinnedSources.isEmpty { addedRequests.removeFinished(status.finishedPinnedSources) }
        let facts = SnapshotWriter.Facts(
            pid: getpid(), instance: options.instance, lastRebuild: lastRebuild, lastLoadStarted: lastLoadStarted,
            rebuilds: rebuildCount, lastError: lastError, configDirectories: options.configDirectories,
            problems: problems, defaultBackends: defaultBackends, badge: badge.count)
        snapshot.write(status: status, facts: facts, now: clock.now())
    }

    /// Sends `state` to the service manager from a queue of its own, in order: `sd_notify` blocks while the
    /// manager's socket is full, and that must never hold up a fire.
    private func notify(_ state: String) {
        let notifier = self.notifier
        let log = self.log
        notifyQueue.async {
            do {
                try notifier.notify(state)
            } catch {
                log.record(DaemonEvent(.systemError, "sd_notify failed: \(error)", priority: .warning))
            }
        }
    }

    static func monotonicMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// `WATCHDOG=1` at half of `WatchdogSec=`, the only periodic wake-up, and only when systemd asks for it.
    private func startWatchdog() {
        let requested: Duration?
        do {
            requested = try notifier.watchdogInterval()
        } catch {
            log.record(
                DaemonEvent(.systemError, "Cannot read the watchdog settings (\(error)), ignoring", priority: .warning))
            return
        }
        guard let interval = requested else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int((interval / 2).wholeNanoseconds)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.notify("WATCHDOG=1") }
        timer.activate()
        watchdog = timer
    }

    // MARK: Signals and shutdown

    private func installSignalHandlers() {
        for number in [SIGHUP, SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if number == SIGHUP {
                    self.rebuild(reason: "SIGHUP")
                } else {
                    self.stop(signal: number)
                }
            }
            source.activate()
            signalSources.append(source)
        }
    }

    private func stop(signal number: Int32) {
        guard !isStopping else { return }
        isStopping = true
        notify("STOPPING=1\nSTATUS=Stopping")
        log.record(DaemonEvent(.stopping, "Stopping on signal \(number); waiting for deliveries in flight."))
        scheduler.saveState()
        let drained = dispatcher.drain(within: .seconds(5))
        if !drained {
            log.record(
                DaemonEvent(.stopping, "Deliveries still in flight after 5 s; exiting anyway.", priority: .warning))
        }
        instanceLock?.removePIDFile()
        // STOPPING=1 is out before the process ends, unless the service manager's socket is full and unread: the
        // send would block for ever, and a stop must not.
        let sent = DispatchSemaphore(value: 0)
        notifyQueue.async { sent.signal() }
        _ = sent.wait(timeout: .now() + .seconds(2))
        exit(0)
    }
}
