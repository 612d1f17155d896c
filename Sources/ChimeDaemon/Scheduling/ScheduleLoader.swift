import ChimeCore
import ChimePlatform
import Foundation

/// Everything one rebuild loaded: the valid notifications, and every problem found on the way.
public struct LoadedSchedule: Sendable {
    public var notifications: [LoadedNotification] = []
    /// Errors (the file was skipped) and warnings, each with file, line and column.
    public var problems: [UnitFileDiagnostic] = []
    /// The zone of wall-clock times without a zone of their own, as it was when loading.
    public var systemZone: ZoneRules
    /// What the next load may reuse of this one.
    var reusable: ReusableParts

    public init(systemZone: ZoneRules) {
        self.systemZone = systemZone
        reusable = ReusableParts(context: LoadContext(systemZone: systemZone))
    }

    public var errorCount: Int { problems.filter { $0.severity == .error }.count }

    /// How many files (or generators) have at least one error: a file with three bad lines counts once.
    public var filesWithErrors: Int {
        Set(problems.lazy.filter { $0.severity == .error }.map(\.location.file)).count
    }
}

/// Why a rebuild could not load anything, in which case the previous schedule stays armed.
public struct ScheduleLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// One place notifications come from. Each source contributes entries; the loader merges them.
public protocol ScheduleSource: Sendable {
    /// Adds this source's notifications and problems to `schedule`.
    func load(into schedule: inout LoadedSchedule, loader: NotificationLoader) throws(ScheduleLoadError)
}

/// `NAME.notification` files and their drop-ins in a search path (earlier directories win).
///
/// A notification whose file or one of whose drop-ins is not owned by root or chimed's user, or is writable by its
/// group or by others, is refused (`FileTrust`): its `ExecAction=` runs as chimed's user.
public struct NotificationDirectorySource: ScheduleSource {
    public var directories: [String]
    /// What the directories are, for messages: "configuration directory", "directory of runtime requests".
    public var role: String
    /// What its notifications are: the configuration's files, or `chimectl add`'s requests.
    public var kind: LoadedNotification.Kind
    /// The notifications read from files at the load before, to take where the files did not change.
    public var reuse: FileReuse?
    var trust = FileTrust()

    public init(
        directories: [String], role: String = "configuration directory", kind: LoadedNotification.Kind = .file,
        reuse: FileReuse? = nil
    ) {
        self.kind = kind
        self.directories = directories
        self.role = role
        self.reuse = reuse
    }

    public func load(into schedule: inout LoadedSchedule, loader: NotificationLoader) throws(ScheduleLoadError) {
        // A directory that exists but cannot be read would silently drop every notification in it: fail the whole
        // load so that the previous schedule stays, naming every such directory and why.
        let unreadable = directories.compactMap { directory in
            ScheduleCheck.whyUnreadable(directory).map { "\(directory) (\($0))" }
        }
        if !unreadable.isEmpty {
            throw ScheduleLoadError("Cannot read \(role) " + unreadable.joined(separator: ", "))
        }
        let (directories, refused) = Self.trusted(directories, trust: trust)
        schedule.problems += refused
        let probe = PosixFileKindProbe(keepingOwnership: true)
        let earlier = reuse?.earlier(for: loader)
        // Each file is checked and validated as soon as it is read, on the search's threads: the parsed files are
        // not held all at once, and the heaps stay near the size of the schedule they leave. Files that hold what
        // they held at the load before give what they gave then, once their owner and mode are checked again.
        var (results, searchProblems) = NotificationSearch.map(
            searching: directories, probe: probe,
            reusing: { bytes -> ([UnitFileDiagnostic], LoadedNotification?)? in
                guard let earlier, objection(to: bytes.paths, read: probe.ownership(of:)) == nil,
                    let notification = earlier.notification(readFrom: bytes)
                else { return nil }
                return ([], notification)
            }
        ) { file, fingerprint -> ([UnitFileDiagnostic], LoadedNotification?) in
            if case .loaded = file.content,
                let (path, objection) = objection(to: [file.path] + file.dropInPaths, read: probe.ownership(of:))
            {
                return ([UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), objection)], nil)
            }
            let result = loader.load(file)
            // Only what loaded without a word to say is taken again: its problems would have to be told again.
            let kept = result.diagnostics.isEmpty ? fingerprint : 0
            return (
                result.diagnostics,
                result.notification.map {
                    LoadedNotification(notification: $0, source: file.path, fingerprint: kept, kind: kind)
                }
            )
        }
        schedule.problems += searchProblems
        // Moved out rather than copied: a copy would retain all that each notification holds, and dropping the
        // results release it all again, on one thread after the search's two. Nothing is reserved: the array may
        // be a reused generator output shared with the installed schedule, which any change to it would copy.
        results.withUnsafeMutableBufferPointer { results in
            for index in results.indices {
                let (problems, notification) = results.moveElement(from: index)
                results.initializeElement(at: index, to: ([], nil))
                schedule.problems += problems
                if let notification {
                    if notification.fingerprinted { schedule.reusable.readFiles = true }
                    schedule.notifications.append(notification)
                }
            }
        }
    }
}

extension NotificationDirectorySource {
    /// The directories of `directories` that may be searched, and an error for each that may not: one that another
    /// user owns, or that its group or others may write to, lets them add or mask a notification, so nothing in it
    /// is loaded (as a file writable by others is refused).
    public static func trusted(_ directories: [String]) -> (directories: [String], problems: [UnitFileDiagnostic]) {
        trusted(directories, trust: FileTrust())
    }

    static func trusted(
        _ directories: [String], trust: FileTrust
    ) -> (directories: [String], problems: [UnitFileDiagnostic]) {
        var problems: [UnitFileDiagnostic] = []
        let kept = directories.filter { directory in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
                let objection = trust.objection(
                    to: directory, subject: "Directory", action: "load the notifications in it")
            else { return true }
            problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: directory), objection))
            return false
        }
        return (kept, problems)
    }

    /// Why chimed would refuse to load `file` (its owner or mode, or a drop-in's), or `nil` when it would load it.
    public static func objection(to file: NotificationFile) -> UnitFileDiagnostic? {
        NotificationDirectorySource(directories: []).objection(to: [file.path] + file.dropInPaths).map {
            UnitFileDiagnostic(.error, at: UnitFileLocation(file: $0.path), $0.objection)
        }
    }

    /// The first of `paths` that must not be loaded, and why; `read` gives the owner and mode of those read.
    private func objection(
        to paths: [String], read: (String) -> FileOwnership? = { _ in nil }
    ) -> (path: String, objection: String)? {
        for path in paths {
            if let objection = trust.objection(to: path, subject: "File", action: "load it", read: read(path)) {
                return (path, objection)
            }
        }
        return nil
    }
}

/// Loads the whole schedule from all sources: the first half of every rebuild, run off the scheduler's queue.
public struct ScheduleLoader: Sendable {
    public var sources: [any ScheduleSource]
    public var zones: ZoneDatabase
    /// `[Daemon] MaxNotifications=`: the most notifications the schedule holds. Those beyond it in the order of the
    /// sources (and of each source: files by name, generators by name and then line) are dropped with one error.
    public var maximumNotifications: Int
    /// The backends `Deliver=` may name (`NotificationLoader.knownBackends`); `nil` to take any.
    public var knownBackends: [String]?
    /// Why `WakeSystem=yes` cannot be honoured, when it cannot (`NotificationLoader.wakeSystemRefusal`).
    public var wakeSystemRefusal: String?
    /// The shortest time apart one notification may fire (`NotificationLoader.minimumInterval`).
    public var minimumInterval = InputLimits.defaultMinimumInterval
    /// What the load before left, to take rather than read again: its calendar events here, its generators' and
    /// files' notifications through the sources (`forInstance`).
    var reuse = ScheduleReuse()

    public init(
        sources: [any ScheduleSource], zones: ZoneDatabase = .system,
        maximumNotifications: Int = InputLimits.defaultMaximumNotifications
    ) {
        self.sources = sources
        self.zones = zones
        self.maximumNotifications = maximumNotifications
    }

    /// Where an instance's notifications come from, in order of precedence for the same id: files, then
    /// generators, then the requests of `chimectl add` (`DaemonOptions.addedDirectory`), then applications'
    /// requests (`ApplicationRequests`).
    ///
    /// Being last, a runtime request never shadows a file or a generator's notification: one with the same id is
    /// dropped with a warning, as any later duplicate is. Drop-ins of the configuration directories do not apply
    /// to runtime requests, which are whole files of their own.
    public static func instanceSources(
        options: DaemonOptions, environment: [String: String],
        configuration: DaemonConfiguration = DaemonConfiguration()
    ) -> [any ScheduleSource] {
        instanceSources(
            options: options, environment: environment, configuration: configuration, reuse: ScheduleReuse())
    }

    /// The loader of an instance's whole schedule as a rebuild and `chimed --check` load it: its sources, and the
    /// limits and names chimed.conf gives, taking what `reuse` lends.
    static func forInstance(
        options: DaemonOptions, environment: [String: String], configuration: DaemonConfiguration,
        wakeSystemRefusal: String?, reuse: ScheduleReuse = ScheduleReuse()
    ) -> ScheduleLoader {
        var loader = ScheduleLoader(
            sources: instanceSources(
                options: options, environment: environment, configuration: configuration, reuse: reuse),
            maximumNotifications: configuration.maximumNotifications)
        loader.knownBackends = configuration.backendNames
        loader.minimumInterval = configuration.minimumInterval
        loader.wakeSystemRefusal = wakeSystemRefusal
        loader.reuse = reuse
        return loader
    }

    private static func instanceSources(
        options: DaemonOptions, environment: [String: String], configuration: DaemonConfiguration,
        reuse: ScheduleReuse
    ) -> [any ScheduleSource] {
        let generatorReuse = reuse.generators
        // Indexed once for the configuration's files and the runtime requests alike.
        let fileReuse = reuse.files?.indexed()
        return [
            NotificationDirectorySource(directories: options.configDirectories, reuse: fileReuse),
            GeneratorSource(
                directories: options.configDirectories, environment: environment,
                timeout: configuration.generatorTimeout, outputLimit: configuration.generatorOutputLimit,
                reuse: generatorReuse),
            NotificationDirectorySource(
                directories: [options.addedDirectory], role: "directory of runtime requests", kind: .added,
                reuse: fileReuse),
            ApplicationRequestSource(requests: ApplicationRequests(stateDirectory: options.stateDirectory)),
        ]
    }

    /// Loads every source with `systemZone` as the zone of times without one. Notifications with the same id
    /// from a later source are dropped with a warning; those beyond `maximumNotifications` with one error.
    public func load(systemZone: ZoneRules) throws(ScheduleLoadError) -> LoadedSchedule {
        var schedule = try loadWithoutLimit(systemZone: systemZone)
        guard schedule.notifications.count > maximumNotifications else { return schedule }
        let first = schedule.notifications[maximumNotifications]
        let dropped = schedule.notifications.count - maximumNotifications
        schedule.problems.append(
            UnitFileDiagnostic(
                .error, at: UnitFileLocation(file: first.source, line: first.line),
                "Notification '\(first.notification.id)' is beyond the \(InputLimits.grouped(maximumNotifications)) "
                    + "the schedule may hold (MaxNotifications=); ignoring it"
                    + (dropped > 1 ? " and the \(InputLimits.grouped(dropped - 1)) after it." : ".")))
        schedule.notifications.removeSubrange(maximumNotifications...)
        // The generators' ranges of notifications no longer hold; the next rebuild reads them again.
        schedule.reusable.generatorOutputs = [:]
        return schedule
    }

    private func loadWithoutLimit(systemZone: ZoneRules) throws(ScheduleLoadError) -> LoadedSchedule {
        var schedule = LoadedSchedule(systemZone: systemZone)
        // Thousands of files name the same few zones: read each zone file once per load, and anew at the next.
        var loader = NotificationLoader(systemZone: systemZone, zones: zones.cachingLookups())
        loader.knownBackends = knownBackends
        loader.wakeSystemRefusal = wakeSystemRefusal
        loader.minimumInterval = minimumInterval
        let calendarCache = CalendarCache(previous: reuse.calendars?.cache(for: loader))
        loader.calendarCache = calendarCache
        loader.sharedTexts = SharedTexts()
        defer { calendarCache.letGoOfPrevious() }
        for source in sources {
            try source.load(into: &schedule, loader: loader)
        }
        schedule.reusable.calendarCache = calendarCache
        schedule.reusable.context = LoadContext(loader)
        // Duplicates are rare: look for one before copying every entry through the filter. In place, since
        // copying each notification out would retain and release all it holds.
        let hasDuplicates = schedule.notifications.withUnsafeBufferPointer { entries in
            nonisolated(unsafe) let entries = entries
            return NameIndex(count: entries.count) { entries[$0].notification.id }.hasRepeats
        }
        guard hasDuplicates else { return schedule }
        var seen = Set<String>(minimumCapacity: schedule.notifications.count)
        // The generators' ranges of notifications no longer hold; the next rebuild reads them again.
        schedule.reusable.generatorOutputs = [:]
        schedule.notifications = schedule.notifications.filter { entry in
            if seen.insert(entry.notification.id).inserted { return true }
            schedule.problems.append(Self.duplicate(entry.notification.id, source: entry.source, line: entry.line))
            return false
        }
        return schedule
    }

    /// A notification whose id an earlier source (a file before a generator, an earlier line before a later one)
    /// already loaded: it is left out, as `chimectl verify` says too.
    public static func duplicate(_ id: String, source: String, line: Int?) -> UnitFileDiagnostic {
        UnitFileDiagnostic(
            .warning, at: UnitFileLocation(file: source, line: line),
            "A notification named '\(id)' was already loaded, ignoring this one.")
    }
}

/// The requests applications made over D-Bus (`ApplicationRequests`), each under its schedule id `APP_ID:ID`.
/// chimed wrote every one of them itself, after validating it the way a file is: what fails to load now is
/// reported as a file's problem would be.
public struct ApplicationRequestSource: ScheduleSource {
    public var requests: ApplicationRequests

    public init(requests: ApplicationRequests) {
        self.requests = requests
    }

    public func load(into schedule: inout LoadedSchedule, loader: NotificationLoader) throws(ScheduleLoadError) {
        let loader = ApplicationRequests.restricting(loader)
        // Bounded as any notification file is read: a file put here by hand may be anything.
        let probe = PosixFileKindProbe()
        for appID in requests.appIDs() {
            for id in requests.ids(appID: appID) {
                let path = requests.path(appID: appID, id: id)
                let data: Data
                do {
                    data = try probe.contents(of: path)
                } catch let error as FileTooLarge {
                    schedule.problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), "\(error)"))
                    continue
                } catch {
                    // Removed since it was listed: a request that left.
                    if (error as? ReadFailure)?.errno == ENOENT { continue }
                    let message = "Failed to read file: \(error.localizedDescription)."
                    schedule.problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), message))
                    continue
                }
                let result = loader.load(
                    UnitFile(parsing: data, path: path), id: ApplicationRequests.scheduleID(appID: appID, id: id),
                    path: path)
                schedule.problems += result.diagnostics
                if let notification = result.notification {
                    schedule.notifications.append(LoadedNotification(application: notification, source: path))
                }
            }
        }
    }
}
