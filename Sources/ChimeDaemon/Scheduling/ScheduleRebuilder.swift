import ChimeCore
import ChimePlatform
import Foundation

/// Rebuilds the whole schedule — at start, on `SIGHUP`, on a clock or zone change, when `chimectl` asks — and never
/// patches it: chimed.conf and every source are loaded again off the scheduler's queue, and so is the new schedule
/// prepared from the installed one (`PreparedSchedule`), which deliveries go on from meanwhile; then the
/// configuration is applied and the new schedule swapped in, in one step on the queue.
///
/// Requests that come while a load runs collapse into one more rebuild after it. `RELOADING=1` goes out before a
/// rebuild (not the first), `READY=1` after each (`ScheduleReporter`). chimed.conf is put into effect by
/// `ConfigurationApplier`; what one load leaves for the next travels as one `ScheduleReuse`. Bound to the
/// scheduler's queue (checked).
final class ScheduleRebuilder: @unchecked Sendable {
    private let options: DaemonOptions
    private let environment: [String: String]
    private let queue: DispatchQueue
    private let loadQueue = DispatchQueue(label: "chimed.load", qos: .utility)
    private let clock: any WallClock
    private let scheduler: Scheduler
    private let applier: ConfigurationApplier
    private let badge: InstanceBadge
    private let reporter: ScheduleReporter
    /// Where an acknowledged notification (`chimectl ack`) stops ringing.
    private let sounds: DeliverySounds?
    private let messages: ServiceManagerMessages
    private let log: any EventLog

    private var isRebuilding = false
    private var rebuildPending = false
    /// What to run once the rebuild under way is installed, and once the one pending after it is.
    private var whenRebuilt: [() -> Void] = []
    private var whenPendingRebuilt: [() -> Void] = []
    private var isStopped = false
    private var facts = ScheduleReporter.RebuildFacts()
    /// What the installed schedule's load lends the next.
    private var reuse = ScheduleReuse()
    /// Why this chimed cannot wake the system, if it cannot (`SystemWaking`): `WakeSystem=yes` is an error then.
    let wakeSystemRefusal: String?
    /// Whether the clock or the zone changed since the last load began.
    private var timeChangedSinceLoad = false

    init(
        options: DaemonOptions, environment: [String: String], queue: DispatchQueue, clock: any WallClock,
        scheduler: Scheduler, applier: ConfigurationApplier, badge: InstanceBadge, reporter: ScheduleReporter,
        sounds: DeliverySounds?, messages: ServiceManagerMessages, wakeSystemRefusal: String?, log: any EventLog
    ) {
        self.sounds = sounds
        self.options = options
        self.environment = environment
        self.queue = queue
        self.clock = clock
        self.scheduler = scheduler
        self.applier = applier
        self.badge = badge
        self.reporter = reporter
        self.messages = messages
        self.wakeSystemRefusal = wakeSystemRefusal
        self.log = log
    }

    /// Whether a schedule is being loaded (or another load waits): what it installs may predate a change made now.
    var isLoading: Bool { isRebuilding || rebuildPending }

    /// chimed.conf as last loaded.
    var configuration: DaemonConfiguration { applier.configuration }

    /// The backends of notifications without `Deliver=`.
    var defaultBackends: [String] { applier.defaultBackends }

    /// Starts a rebuild for `reason`; while one is loading, further requests collapse into one more.
    /// `completion` runs on the queue once a rebuild that started after this request is installed: one that began
    /// earlier may have read the sources before the change that asked for it.
    /// - Parameter timeChanged: the clock or the zone changed: the next rebuild computes every pending occurrence
    ///   anew instead of keeping those of unchanged notifications (`Scheduler.install(_:keepingPending:)`).
    func rebuild(reason: String, timeChanged: Bool = false, then completion: (() -> Void)? = nil) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isStopped else { return }
        if timeChanged { timeChangedSinceLoad = true }
        if isRebuilding {
            rebuildPending = true
            if let completion { whenPendingRebuilt.append(completion) }
            return
        }
        if let completion { whenRebuilt.append(completion) }
        isRebuilding = true
        if facts.rebuilds > 0 {
            messages.send(
                "RELOADING=1\nMONOTONIC_USEC=\(ServiceManagerMessages.monotonicMicroseconds())\n"
                    + "STATUS=Reloading (\(reason))…")
        }
        let options = self.options
        let environment = self.environment
        let clock = self.clock
        let reuse = self.reuse
        let wakeSystemRefusal = self.wakeSystemRefusal
        let keepingPending = !timeChangedSinceLoad
        timeChangedSinceLoad = false
        // The first install delivers what was missed while chimed was down, which it does on the queue.
        let scheduler = self.scheduler
        // Taken out by the load, so that the replaced schedule's storage is freed there, not on the queue.
        let lent = Locked(scheduler.isInstalled ? scheduler.basis(keepingPending: keepingPending) : nil)
        loadQueue.async {
            let started = clock.now()
            let zone = LocalZone.resolve(tz: environment["TZ"])
            let configuration = DaemonConfiguration.load(directories: options.configDirectories, systemZone: zone)
            let quietSwitch = Result { () throws(QuietSwitchFile.Unreadable) in
                try QuietSwitchFile(stateDirectory: options.stateDirectory).read()
            }
            let loader = ScheduleLoader.forInstance(
                options: options, environment: environment, configuration: configuration,
                wakeSystemRefusal: wakeSystemRefusal, reuse: reuse)
            let result = Result { () throws(ScheduleLoadError) in try loader.load(systemZone: zone) }
            let basis = lent.withLock { lent in lent.take() }
            let prepared = (try? result.get()).flatMap { loaded in
                basis.map { basis in
                    PreparedSchedule(
                        loaded, basis: basis, now: clock.now().epochMicroseconds, history: { basis.histories.read($0) })
                }
            }
            // Named by some notification's Deliver=; the defaults are added where they are known, on the queue.
            var named = Set<String>()
            if case .success(let loaded) = result {
                // In place: `for entry in` copies each notification out, retaining and releasing all it holds.
                loaded.notifications.withUnsafeBufferPointer { entries in
                    for index in entries.indices {
                        for name in entries[index].notification.backends { named.insert(name) }
                    }
                }
            }
            let namedBackends = named
            self.queue.async {
                self.applier.apply(
                    configuration, namedBackends: namedBackends, quietSwitch: quietSwitch, systemZone: zone,
                    isFirst: self.facts.rebuilds == 0)
                self.finish(
                    result, prepared: prepared, reason: reason, started: started, keepingPending: keepingPending)
            }
        }
    }

    /// No rebuild starts after this (chimed is stopping).
    func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        isStopped = true
    }

    private func finish(
        _ result: Result<LoadedSchedule, ScheduleLoadError>, prepared: PreparedSchedule?, reason: String,
        started: Date, keepingPending: Bool
    ) {
        isRebuilding = false
        // The previous schedule and the load's working memory are freed by now or soon: give the pages back to the
        // system, or the process keeps the high-water mark of every rebuild. After the snapshot, so as to delay
        // neither it nor a fire, and after the replaced schedule is freed.
        let release = FreedMemoryRelease(after: 2)
        facts.lastLoadStarted = started
        let first = facts.rebuilds == 0
        facts.rebuilds += 1
        switch result {
        case .success(let loaded):
            if first { MallocTuning.forRebuilds() }
            badge.takeStoredAndRequested(isFirstRebuild: first)
            // The replaced schedule (and the generators' part of it, which the reuse lent) is freed on the load's
            // queue, not between two fires: a hundred thousand notifications take milliseconds to free. Held by
            // nothing else here, or the last release could still come on this queue.
            let discarded = Discarded()
            if let prepared {
                discarded.schedule = scheduler.commit(prepared)
            } else {
                scheduler.install(loaded, keepingPending: keepingPending)
            }
            let acknowledged = AcknowledgementRequests(stateDirectory: options.stateDirectory).take()
            if !acknowledged.isEmpty {
                sounds?.stop(acknowledged)
                scheduler.acknowledge(acknowledged, by: "chimectl ack")
            }
            discarded.reuse = reuse
            reuse = ScheduleReuse(loaded)
            loadQueue.async {
                discarded.empty()
                release.arrive()
            }
            badge.saveIfChanged()
            facts.lastRebuild = clock.now()
            facts.problems = loaded.problems.map(\.description)
            facts.lastError = loaded.problems.first { $0.severity == .error }?.description
            for problem in loaded.problems { log.record(DaemonEvent.configurationProblem(problem)) }
            log.record(DaemonEvent.rebuilt(loaded, scheduled: scheduler.scheduledCount, first: first, reason: reason))
        case .failure(let error):
            release.arrive()
            scheduler.abandonBasis()
            facts.lastError = error.message
            log.record(DaemonEvent.loadFailed(error))
        }
        facts.defaultBackends = defaultBackends
        reporter.rebuilt(facts) { release.arrive() }
        let done = whenRebuilt
        whenRebuilt = []
        for completion in done { completion() }
        if rebuildPending {
            rebuildPending = false
            whenRebuilt = whenPendingRebuilt
            whenPendingRebuilt = []
            rebuild(reason: "coalesced requests")
        }
    }
}

/// What a rebuild replaced, handed to the load's queue to be freed there.
private final class Discarded: @unchecked Sendable {
    // Set on the scheduler's queue, emptied on the load's, after it.
    var schedule: ReplacedSchedule?
    var reuse: ScheduleReuse?

    func empty() {
        schedule = nil
        reuse = nil
    }
}
