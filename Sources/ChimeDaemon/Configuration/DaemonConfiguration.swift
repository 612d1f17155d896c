import ChimeCore
import ChimePlatform
import Foundation

/// chimed.conf: the daemon's default backends, its backend definitions and the presentation settings.
///
/// Found like a unit: the first `chimed.conf` of the configuration directories, then the drop-ins
/// `chimed.conf.d/*.conf` of all of them (for the same file name the earliest directory wins), applied in the
/// byte order of their names. A missing file means the defaults. Every problem is a diagnostic with file, line and
/// column; a value that breaks a rule is ignored (the default stays), so one bad line never loses the rest.
public struct DaemonConfiguration: Sendable, Equatable {
    /// `[Daemon] Deliver=`: backends for notifications without `Deliver=`; `nil` when not set.
    public var defaultBackends: [String]?
    /// `[Daemon] GeneratorTimeoutSec=`: how long each generator may run.
    public var generatorTimeout = GeneratorSource.defaultTimeout
    /// `[Daemon] GeneratorMaxOutput=`: the most bytes a generator may print.
    public var generatorOutputLimit = GeneratorSource.defaultOutputLimit
    /// `[Daemon] MaxNotifications=`: the most notifications the schedule holds.
    public var maximumNotifications = InputLimits.defaultMaximumNotifications
    /// `[Daemon] MaxRequestsPerApp=`: the most requests one application may have pending (`Add` on the bus).
    public var maximumRequestsPerApp = ApplicationRequests.defaultMaximumPerApp
    /// `[Daemon] MaxRequests=`: the most requests all applications together may have pending.
    public var maximumRequests = ApplicationRequests.defaultMaximumTotal
    /// `[Daemon] MaxRequestBytes=`: the most bytes all applications' requests may take as notification files.
    public var maximumRequestBytes = ApplicationRequests.defaultMaximumTotalBytes
    /// `[Daemon] MinimumInterval=`: the shortest time apart one notification may fire.
    public var minimumInterval = InputLimits.defaultMinimumInterval
    public var presentation = PresentationSettings()
    public var sound = SoundSettings()
    /// `[Quiet]` and `[Focus]`.
    public var focus = FocusSettings()
    public var desktop = DesktopSettings()
    /// The `command` backends: the built-in one (named `command`) first, then the named ones in file order.
    public var commands: [CommandSettings] = [CommandSettings()]
    /// The `webhook` backends: the built-in one (named `webhook`) first, then the named ones in file order.
    public var webhooks: [WebhookSettings] = [WebhookSettings()]
    /// The `apprise` backends: the built-in one (named `apprise`) first, then the named ones in file order.
    public var apprises: [AppriseSettings] = [AppriseSettings()]
    /// The files read, main file first.
    public var paths: [String] = []
    /// Errors and warnings, each with its location.
    public var diagnostics: [UnitFileDiagnostic] = []

    public init() {}

    /// The backends of notifications without `Deliver=`: `chimed --deliver=` (`override`), else `[Daemon] Deliver=`,
    /// else the journal.
    public func backendsWithoutDeliver(override: [String]?) -> [String] {
        override ?? defaultBackends ?? ["journal"]
    }

    public static let fileName = "chimed.conf"
    /// Backends that always exist, whatever the configuration says.
    public static let builtInNames = ["journal", "stdout", "desktop", "command", "webhook", "apprise"]

    public static func == (a: DaemonConfiguration, b: DaemonConfiguration) -> Bool {
        a.defaultBackends == b.defaultBackends && a.generatorTimeout == b.generatorTimeout
            && a.generatorOutputLimit == b.generatorOutputLimit && a.maximumNotifications == b.maximumNotifications
            && a.maximumRequestsPerApp == b.maximumRequestsPerApp && a.minimumInterval == b.minimumInterval
            && a.maximumRequests == b.maximumRequests && a.maximumRequestBytes == b.maximumRequestBytes
            && a.presentation == b.presentation && a.sound == b.sound
            && a.focus == b.focus && a.desktop == b.desktop
            && a.commands == b.commands && a.webhooks == b.webhooks && a.apprises == b.apprises && a.paths == b.paths
            && a.diagnostics == b.diagnostics
    }

    /// Every backend name: the built-ins and the named `[Command]`, `[Webhook]` and `[Apprise]` sections.
    public var backendNames: [String] {
        var names = Self.builtInNames
        for name in commands.map(\.name) + webhooks.map(\.name) + apprises.map(\.name) where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// The keys of each section.
    public static let knownKeys: [String: Set<String>] = [
        "Daemon": [
            "Deliver", "GeneratorTimeoutSec", "GeneratorMaxOutput", "MaxNotifications", "MaxRequestsPerApp",
            "MinimumInterval", "MaxRequests", "MaxRequestBytes",
        ],
        "Presentation": ["Alert", "Sound", "Badge"],
        "Sound": ["Theme", "Volume", "RingLimitSec"],
        "Focus": ["Passive", "Active", "TimeSensitive", "Release", "FollowDesktop"],
        "Quiet": ["OnCalendar", "LengthSec", "TimeZone"],
        "Desktop": ["AppName", "DesktopEntry", "ExpireSec", "Fallback"],
        "Command": ["Name", "Exec", "TimeoutSec"],
        "Webhook": ["Name", "URL", "Header", "TimeoutSec", "Retries", "RetrySec", "RetryMaxSec"],
        "Apprise": ["Name", "URL", "ConfigFile", "TimeoutSec"],
    ]
}

extension DaemonConfiguration {
    /// Finds, checks and reads chimed.conf and its drop-ins in `directories` (earliest first).
    ///
    /// A file chimed must not trust (see `FileTrust`: it names commands that run as chimed's user) is refused with
    /// an error, like a notification file.
    /// - Parameter systemZone: the zone whose abbreviations (`CET`) may end a `[Quiet]` calendar event.
    public static func load(directories: [String], systemZone: ZoneRules? = nil) -> DaemonConfiguration {
        load(directories: directories, trust: FileTrust(), systemZone: systemZone)
    }

    static func load(directories: [String], trust: FileTrust, systemZone: ZoneRules? = nil) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        var unit = UnitFile()
        let fileManager = FileManager.default
        // lstat(2), not stat(2): a chimed.conf that is a dangling link or a loop of links is reported, not missed.
        if let main = directories.map({ $0 + "/" + fileName }).first(where: { path in
            var status = stat()
            return lstat(path, &status) == 0
        }) {
            configuration.read(main, into: &unit, trust: trust)
        }
        var dropIns: [String: String] = [:]
        for directory in directories {
            let dropInDirectory = directory + "/" + fileName + ".d"
            let names = (try? fileManager.contentsOfDirectory(atPath: dropInDirectory)) ?? []
            for name in names where name.hasSuffix(".conf") && !name.hasPrefix(".") && dropIns[name] == nil {
                dropIns[name] = dropInDirectory + "/" + name
            }
        }
        let names = dropIns.keys.sorted(by: { $0.precedesInByteOrder($1) })
        for name in names.prefix(InputLimits.maximumDropIns) {
            configuration.read(dropIns[name]!, into: &unit, trust: trust)
        }
        if names.count > InputLimits.maximumDropIns {
            let first = dropIns[names[InputLimits.maximumDropIns]]!
            let after = names.count - InputLimits.maximumDropIns - 1
            configuration.diagnostics.append(
                UnitFileDiagnostic(
                    .error, at: UnitFileLocation(file: first),
                    "chimed.conf has \(InputLimits.grouped(names.count)) drop-ins, more than the "
                        + "\(InputLimits.maximumDropIns) it may have; ignoring this one"
                        + (after > 0 ? " and the \(InputLimits.grouped(after)) after it." : ".")))
        }
        configuration.apply(unit, systemZone: systemZone ?? LocalZone.resolve(tz: nil), trust: trust)
        return configuration
    }

    /// Reads `text` as one chimed.conf (for tests and `chimed --check` of a single file).
    public init(parsing text: String, path: String, systemZone: ZoneRules = .utc) {
        self.init()
        paths = [path]
        apply(UnitFile(parsing: text, path: path), systemZone: systemZone, trust: FileTrust())
    }

    private mutating func read(_ path: String, into unit: inout UnitFile, trust: FileTrust) {
        let probe = PosixFileKindProbe()
        switch probe.kind(of: path) {
        case .null:
            // A link to /dev/null masks, as an empty file does (and /dev/null is writable by all).
            return
        case .directory, .other:
            // Not opened at all: a FIFO would block, a device such as /dev/zero would never end.
            diagnostics.append(
                UnitFileDiagnostic(
                    .error, at: UnitFileLocation(file: path), "Cannot read the file: Not a regular file."))
            return
        case .file:
            break
        }
        if let objection = trust.objection(to: path, subject: "File", action: "read it") {
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), objection))
            return
        }
        let contents: Data
        do {
            contents = try probe.contents(of: path)
        } catch let error as FileTooLarge {
            diagnostics.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: path), error.description))
            return
        } catch {
            diagnostics.append(
                UnitFileDiagnostic(
                    .error, at: UnitFileLocation(file: path),
                    "Cannot read the file: \(error.localizedDescription)."))
            return
        }
        guard !contents.isEmpty else { return }
        paths.append(path)
        unit.apply(dropIn: UnitFile(parsing: contents, path: path))
    }

    private mutating func apply(_ unit: UnitFile, systemZone: ZoneRules, trust: FileTrust) {
        diagnostics += unit.diagnostics
        var reader = ConfigurationReader()
        for section in unit.sections {
            guard let keys = Self.knownKeys[section.name] else {
                reader.warning(
                    section.location,
                    "Unknown section '\(section.name)', ignoring."
                        + Suggestion.didYouMean(section.name, among: Self.knownKeys.keys.sorted()))
                continue
            }
            for entry in section.entries where !keys.contains(entry.key) {
                reader.warning(
                    entry.location,
                    "Unknown key '\(entry.key)' in section [\(section.name)], ignoring."
                        + Suggestion.sectionOf(entry.key, among: Self.knownKeys)
                        + Suggestion.didYouMean(entry.key, among: keys.sorted()))
            }
        }
        if let entry = unit.lastValue(for: "Deliver", in: "Daemon") {
            defaultBackends = entry.value.isEmpty ? nil : reader.words(entry)
        }
        for section in unit.sections where section.name == "Daemon" {
            if let entry = reader.single("GeneratorTimeoutSec", in: section), let value = reader.duration(entry) {
                generatorTimeout = value
            }
            if let entry = reader.single("GeneratorMaxOutput", in: section), let value = reader.size(entry) {
                generatorOutputLimit = value
            }
            if let entry = reader.single("MaxNotifications", in: section) {
                if let value = Int(entry.value), value > 0, entry.value.allSatisfy(\.isASCII),
                    value <= InputLimits.largestMaximumNotifications
                {
                    maximumNotifications = value
                } else {
                    reader.error(
                        entry.valueLocation,
                        "Invalid MaxNotifications= '\(entry.value)': expected a whole number from 1 to "
                            + "\(InputLimits.grouped(InputLimits.largestMaximumNotifications)); ignoring.")
                }
            }
            if let entry = reader.single("MaxRequests", in: section), let value = reader.count(entry) {
                maximumRequests = value
            }
            if let entry = reader.single("MaxRequestBytes", in: section), let value = reader.size(entry) {
                maximumRequestBytes = value
            }
            if let entry = reader.single("MinimumInterval", in: section), let value = reader.duration(entry) {
                minimumInterval = value
            }
            if let entry = reader.single("MaxRequestsPerApp", in: section), let value = reader.count(entry) {
                maximumRequestsPerApp = value
            }
        }
        reader.presentation(unit, into: &presentation)
        reader.sound(unit, into: &sound)
        reader.focus(unit, into: &focus, systemZone: systemZone)
        for section in unit.sections where section.name == "Desktop" {
            reader.desktop(section, into: &desktop)
        }
        for section in unit.sections where section.name == "Command" {
            let name = reader.name(of: section, builtIn: "command", taken: Self.otherTypes("command"))
            guard let name else { continue }
            var settings = commands.first { $0.name == name } ?? CommandSettings()
            settings.name = name
            reader.command(section, into: &settings)
            if let index = commands.firstIndex(where: { $0.name == name }) {
                commands[index] = settings
            } else {
                commands.append(settings)
            }
        }
        for section in unit.sections where section.name == "Webhook" {
            let name = reader.name(
                of: section, builtIn: "webhook",
                taken: Self.otherTypes("webhook") + commands.map(\.name))
            guard let name else { continue }
            var settings = webhooks.first { $0.name == name } ?? WebhookSettings()
            settings.name = name
            reader.webhook(section, into: &settings)
            if let index = webhooks.firstIndex(where: { $0.name == name }) {
                webhooks[index] = settings
            } else {
                webhooks.append(settings)
            }
        }
        for section in unit.sections where section.name == "Apprise" {
            let name = reader.name(
                of: section, builtIn: "apprise",
                taken: Self.otherTypes("apprise") + commands.map(\.name) + webhooks.map(\.name))
            guard let name else { continue }
            var settings = apprises.first { $0.name == name } ?? AppriseSettings()
            settings.name = name
            reader.apprise(section, into: &settings, trust: trust)
            if let index = apprises.firstIndex(where: { $0.name == name }) {
                apprises[index] = settings
            } else {
                apprises.append(settings)
            }
        }
        if let fallback = desktop.fallback, !backendNames.contains(fallback) || fallback == desktop.name {
            let entry = unit.lastValue(for: "Fallback", in: "Desktop")
            reader.error(
                entry?.valueLocation ?? UnitFileLocation(file: paths.first ?? Self.fileName),
                "Fallback= names '\(fallback)', which is \(fallback == desktop.name ? "itself" : "no backend"); "
                    + "using journal.")
            desktop.fallback = "journal"
        }
        // In the order of the files and lines, as a reader goes through them.
        let files = paths
        diagnostics += unit.explainingTrailingComments(reader.diagnostics).enumerated().sorted { a, b in
            func key(_ diagnostic: UnitFileDiagnostic) -> (Int, Int, Int) {
                let location = diagnostic.location
                return (files.firstIndex(of: location.file) ?? 0, location.line ?? 0, location.column ?? 0)
            }
            return key(a.element) == key(b.element) ? a.offset < b.offset : key(a.element) < key(b.element)
        }.map(\.element)
    }

    /// The built-in names a section of type `type` may not take.
    private static func otherTypes(_ type: String) -> [String] {
        builtInNames.filter { $0 != type }
    }
}
