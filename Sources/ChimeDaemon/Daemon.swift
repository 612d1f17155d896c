import ChimeCore
import ChimeSystemd
import Foundation

/// The running `chimed`'s lifecycle: the instance lock and PID file, signals (registered before anything can
/// arrive), the service manager and its watchdog, clock and zone watches, and an orderly stop. The work is done by
/// the parts it wires together: the `Scheduler` and its one timer, the `DeliveryPipeline` (presentation, focus,
/// badges, application signals, the `Dispatcher` and its backends), the `ScheduleRebuilder`, the
/// `ScheduleReporter`, the `NotificationAnswers` and the `ApplicationInterface`.
///
/// All scheduling state lives on one serial queue; loading a new schedule runs on another, so a slow load never
/// delays a fire.
public final class Daemon: @unchecked Sendable {
    public let options: DaemonOptions
    private let environment: [String: String]
    private let queue = DispatchQueue(label: "chimed.scheduler", qos: .userInteractive)
    private let clock = SystemWallClock()
    private let log: any EventLog
    private let messages: ServiceManagerMessages
    private let pipeline: DeliveryPipeline
    private let scheduler: Scheduler
    private let rebuilder: ScheduleRebuilder
    private let applications: ApplicationInterface
    /// The desktop's do-not-disturb, followed by a user instance, and the settings database GNOME's is read from.
    private var desktopFocus: DesktopDoNotDisturb?
    private let desktopSettings: (any SettingsDatabase)?
    private var sleepMonitor: SleepMonitor?
    private var signalSources: [any DispatchSourceSignal] = []
    private var watchdog: (any DispatchSourceTimer)?
    private var monitors: [any Sendable] = []
    /// Held from `run()` to the end of the process: no second chimed on the same state and runtime directories.
    private var instanceLock: InstanceLock?
    /// Touched only on `queue`.
    private var isStopping = false

    /// - Parameters:
    ///   - factories: how backends are made from chimed.conf's settings.
    ///   - desktopSettings: where GNOME's do-not-disturb is read (dconf); `nil` follows the notification server's
    ///     switches only.
    ///   - applicationNames: where an application's name is read (its desktop entry), for the bubbles of its
    ///     requests; `nil` names it by its id.
    ///   - soundPlayer: where a user instance plays sounds itself (`Sound=`, `Ring=`); `nil` leaves them to the
    ///     desktop's server. The system instance plays none.
    public init(
        options: DaemonOptions, environment: [String: String], factories: BackendFactories = BackendFactories(),
        desktopSettings: (any SettingsDatabase)? = nil, applicationNames: (any ApplicationNames)? = nil,
        soundPlayer: (any SoundPlaying)? = nil, log: any EventLog
    ) {
        MallocTuning.forFirstLoad()
        // A bus-activated chimed learns the session bus from the activation (DBUS_STARTER_ADDRESS): its badges and
        // bubbles go to that bus too.
        var environment = environment
        if environment["DBUS_SESSION_BUS_ADDRESS"] == nil, environment["DBUS_STARTER_BUS_TYPE"] == "session",
            let starter = environment["DBUS_STARTER_ADDRESS"]
        {
            environment["DBUS_SESSION_BUS_ADDRESS"] = starter
        }
        self.options = options
        self.environment = environment
        self.desktopSettings = desktopSettings
        self.log = log
        let queue = self.queue
        let clock = self.clock
        messages = ServiceManagerMessages(log: log)
        let badge = InstanceBadge(
            stateDirectory: options.stateDirectory, environment: environment, log: log, queue: queue)
        let requests = ApplicationRequests(stateDirectory: options.stateDirectory)
        let appBadges = ApplicationBadges(requests: requests, environment: environment, log: log, queue: queue)
        let signals = ApplicationSignals(queue: queue, log: log)
        let dispatcher = Dispatcher(backends: [], defaultBackends: ["journal"], clock: SystemWallClock(), log: log)
        let wake = SystemWaking.make(instance: options.instance, queue: queue, environment: environment, log: log)
        let serverSounds = ServerSoundCapability()
        let isSystem = options.instance == .system
        let sound = PipelineSound(
            player: isSystem ? nil : soundPlayer, silenceReason: isSystem ? Self.systemSilence : nil,
            serverSounds: serverSounds, environment: environment)
        pipeline = DeliveryPipeline(
            dispatcher: dispatcher, heldStore: FileHeldDeliveryStore(directory: options.stateDirectory, log: log),
            instanceBadge: badge, applicationBadges: appBadges, signals: signals, sound: sound, clock: clock,
            focusTimer: DispatchWallTimer(queue: queue), sleepHold: wake.sleepHold, queue: queue, log: log)
        let focus = pipeline.focus
        scheduler = Scheduler(
            clock: clock, timer: DispatchWallTimer(queue: queue), dispatcher: pipeline.head, log: log,
            store: FileHistoryStore(directory: options.stateDirectory, overflowDirectory: options.runtimeDirectory),
            snoozeStore: FileSnoozeStore(directory: options.stateDirectory, log: log),
            repeatStore: FileRepeatStore(directory: options.stateDirectory, log: log),
            delaySeeds: MachineSeed.delaySeeds(), wake: wake, queue: queue)
        let answers = NotificationAnswers(
            queue: queue, scheduler: scheduler, signals: signals, sounds: pipeline.sounds, clock: clock, log: log,
            environment: environment)
        let registry = BackendRegistry(
            factories: factories,
            context: BackendContext(
                log: log, clock: clock, responder: answers, environment: environment,
                applicationNames: applicationNames, serverSounds: serverSounds))
        let added = AddedRequests(directories: [options.addedDirectory, requests.directory])
        let reporter = ScheduleReporter(
            queue: queue, scheduler: scheduler, focus: focus, badge: badge, messages: messages,
            addedRequests: added, options: options, clock: clock)
        let applier = ConfigurationApplier(
            queue: queue, pipeline: pipeline, registry: registry, defaultBackendsOverride: options.defaultBackends,
            log: log)
        let rebuilder = ScheduleRebuilder(
            options: options, environment: environment, queue: queue, clock: clock, scheduler: scheduler,
            applier: applier, badge: badge, reporter: reporter, sounds: pipeline.sounds, messages: messages,
            wakeSystemRefusal: wake.refusal, log: log)
        self.rebuilder = rebuilder
        let center = ApplicationCenter(
            queue: queue, requests: requests, scheduler: scheduler, rebuilder: rebuilder, reporter: reporter,
            badges: appBadges, sounds: pipeline.sounds, registry: registry, clock: clock, environment: environment)
        // The system instance serves users' instances the wake-ups they cannot arm themselves.
        let wakeService =
            options.instance == .system
            ? WakeService(
                queue: queue, scheduler: scheduler, stateDirectory: options.stateDirectory, refusal: wake.refusal,
                clock: clock, log: log) : nil
        if let wakeService { queue.async { wakeService.restore() } }
        applications = ApplicationInterface(
            queue: queue, center: center, signals: signals, wake: wakeService, log: log)
    }

    /// Why the system instance plays no sound, for the journal when a notification asks for one.
    static let systemSilence =
        "the system instance has no audio session (sounds play in a user's instance, chimed --user, through the "
        + "user's audio server); the backends get it as a hint only"

    /// Starts everything and never returns: the process ends on SIGTERM/SIGINT (exit 0) or a fatal start-up error
    /// (exit 1), such as another chimed already running on the same directories.
    public func run() -> Never {
        do {
            instanceLock = try InstanceLock(options: options)
        } catch {
            FileHandle.standardError.write(Data("chimed: \(error)\n".utf8))
            exit(1)
        }
        installSignalHandlers()
        queue.async { self.startWatchdog() }
        // Applications' calls are taken once the first schedule is in: a bus-activated chimed answers its first
        // call (which the bus holds until the name is taken) from the schedule it loaded.
        queue.async {
            self.rebuilder.rebuild(reason: "start") {
                self.serveApplications()
                self.followDesktopFocus()
                self.followSleep()
            }
        }
        dispatchMain()
    }

    /// Serves applications (`ApplicationInterface`): the user instance on the session bus when there is one (the
    /// bus that started it, `DBUS_STARTER_ADDRESS`, else the session's), the system instance on the system bus.
    private func serveApplications() {
        let isSystemBus = options.instance == .system
        let address =
            isSystemBus
            ? BusConnection.systemBusAddress(environment: environment)
            : environment["DBUS_STARTER_ADDRESS"] ?? BusConnection.sessionBusAddress(environment: environment)
        guard let address else { return }
        let applications = self.applications
        startOnBus(
            "Cannot serve applications on the \(isSystemBus ? "system" : "session") bus \(address)"
        ) {
            try await applications.start(address: address, isSystemBus: isSystemBus)
        }
    }

    /// Runs `start` (what connects to a bus) in the background; when it fails, the daemon says so, with `failure`,
    /// and goes on without it.
    private func startOnBus(_ failure: String, _ start: @escaping @Sendable () async throws -> Void) {
        let log = self.log
        Task {
            do {
                try await start()
            } catch {
                log.record(DaemonEvent(.systemError, "\(failure) (\(error)), ignoring", priority: .warning))
            }
        }
    }

    /// Both instances follow logind's suspend and resume on the system bus (`SleepMonitor`); without a system bus
    /// (a container without one), the wall-clock timer still finds what fell due while the machine slept.
    private func followSleep() {
        guard let address = BusConnection.systemBusAddress(environment: environment) else { return }
        let queue = self.queue
        let scheduler = self.scheduler
        let monitor = SleepMonitor(address: address) { sleeping in
            queue.async { sleeping ? scheduler.sleeping() : scheduler.resumed() }
        }
        sleepMonitor = monitor
        startOnBus("Cannot follow suspend and resume on the system bus \(address)") { try await monitor.start() }
    }

    /// An instance with a session bus (the user instance) follows the desktop's do-not-disturb there
    /// (`DesktopDoNotDisturb`): on, it is quiet. A system service has no session bus, and nothing to follow.
    private func followDesktopFocus() {
        guard
            let address = environment["DBUS_STARTER_ADDRESS"]
                ?? BusConnection.sessionBusAddress(environment: environment)
        else { return }
        let queue = self.queue
        let focus = pipeline.focus
        let monitor = DesktopDoNotDisturb(address: address, settings: desktopSettings) { source in
            queue.async { focus.desktopChanged(source) }
        }
        desktopFocus = monitor
        startOnBus("Cannot follow the desktop's do-not-disturb on the session bus \(address)") {
            try await monitor.start()
        }
    }

    /// Watches for wall-clock changes and for changes of the system zone (`/etc/localtime`): the first makes
    /// the scheduler account for what was jumped over, and both rebuild the schedule. A monitor that cannot start
    /// is reported and the daemon goes on without it.
    public func watchClockAndTimeZone() {
        let scheduler = self.scheduler
        let rebuilder = self.rebuilder
        do {
            let clockMonitor = try ClockChangeMonitor(queue: queue) {
                scheduler.clockChanged()
                rebuilder.rebuild(reason: "clock change", timeChanged: true)
            }
            clockMonitor.start()
            monitors.append(clockMonitor)
        } catch {
            log.record(
                DaemonEvent(.systemError, "Cannot watch for clock changes (\(error)), ignoring", priority: .warning))
        }
        guard environment["TZ"] == nil else { return }
        do {
            let zoneMonitor = try TimeZoneChangeMonitor(queue: queue) {
                rebuilder.rebuild(reason: "time zone change", timeChanged: true)
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

    /// Requests a rebuild; while one is loading, further requests collapse into one more.
    public func requestRebuild(reason: String) {
        queue.async { self.rebuilder.rebuild(reason: reason) }
    }

    /// `WATCHDOG=1` at half of `WatchdogSec=`, the only periodic wake-up, and only when systemd asks for it.
    private func startWatchdog() {
        let requested: Duration?
        do {
            requested = try messages.watchdogInterval()
        } catch {
            log.record(
                DaemonEvent(.systemError, "Cannot read the watchdog settings (\(error)), ignoring", priority: .warning))
            return
        }
        guard let interval = requested else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int((interval / 2).wholeNanoseconds)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        let messages = self.messages
        timer.setEventHandler { messages.send("WATCHDOG=1") }
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
                    rebuilder.rebuild(reason: "SIGHUP")
                } else {
                    stop(signal: number)
                }
            }
            source.activate()
            signalSources.append(source)
        }
    }

    /// Stops in the reverse order of the start: no more rebuilds, the state saved, the deliveries in flight given
    /// 5 seconds, the PID file removed, `STOPPING=1` out.
    private func stop(signal number: Int32) {
        guard !isStopping else { return }
        isStopping = true
        rebuilder.stop()
        messages.send("STOPPING=1\nSTATUS=Stopping")
        log.record(DaemonEvent(.stopping, "Stopping on signal \(number); waiting for deliveries in flight."))
        scheduler.saveState()
        let drained = pipeline.dispatcher.drain(within: .seconds(5))
        if !drained {
            log.record(
                DaemonEvent(.stopping, "Deliveries still in flight after 5 s; exiting anyway.", priority: .warning))
        }
        instanceLock?.removePIDFile()
        // STOPPING=1 is out before the process ends, unless the service manager's socket is full and unread: the
        // send would block for ever, and a stop must not.
        messages.flush(within: .seconds(2))
        exit(0)
    }
}
