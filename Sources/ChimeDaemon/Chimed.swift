import CChimeShims
import ChimeCore
import ChimePlatform
import Foundation

/// The `chimed` program: options, `--check`, and starting the daemon.
public enum Chimed {
    public static let version = "0.1.0"

    static let help = """
        Usage: chimed [OPTIONS]

        The chime local-notification daemon: loads the notification schedule, arms one wall-clock timer for the
        next fire date, delivers when due, and rebuilds the whole schedule on SIGHUP. Runs in the foreground
        (systemd Type=notify); see chimed(8).

        Options:
          --config-dir=DIR      read notifications and run generators.d/ from DIR; repeatable, earlier wins
                                (default: /etc/chime, /run/chime, /usr/lib/chime; with --user ~/.config/chime,
                                $XDG_RUNTIME_DIR/chime)
          --state-dir=DIR       keep state here, and the notifications added with 'chimectl add' in DIR/added
                                (default /var/lib/chime, or ~/.local/state/chime)
          --runtime-dir=DIR     write the PID file and schedule.json here (default /run/chime, or
                                $XDG_RUNTIME_DIR/chime)
          --user                run as the calling user's instance
          --deliver=LIST        backends for notifications without Deliver=, instead of chimed.conf's
                                [Daemon] Deliver= (default: journal)
          --check               load and validate everything, print the schedule, exit 1 on errors
          -h, --help            show this help
          --version             show the version

        Signals: SIGHUP rebuilds the schedule; SIGTERM and SIGINT stop after deliveries in flight.

        """

    static let grammar = ParsedArguments.Grammar(
        valued: ["config-dir", "state-dir", "runtime-dir", "deliver"], flags: ["user", "check", "version"])

    /// Parses the command line into options; `nil` with a printed message for help, version and usage errors.
    public static func options(
        _ arguments: [String], environment: [String: String]
    ) throws(UsageError) -> (DaemonOptions, check: Bool)? {
        let parsed = try ParsedArguments(arguments, grammar: grammar)
        guard parsed.operands.isEmpty else { throw UsageError("unexpected argument '\(parsed.operands[0])'") }
        if parsed.has("help") {
            print(help, terminator: "")
            return nil
        }
        if parsed.has("version") {
            print("chimed \(version)")
            return nil
        }
        var options = DaemonOptions.defaults(for: parsed.has("user") ? .user : .system, environment: environment)
        let directories = parsed.all("config-dir")
        if !directories.isEmpty { options.configDirectories = directories }
        if let state = parsed.value("state-dir") { options.stateDirectory = state }
        if let runtime = parsed.value("runtime-dir") { options.runtimeDirectory = runtime }
        if let deliver = parsed.value("deliver") {
            let names = deliver.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
                throw UsageError("invalid --deliver '\(deliver)'")
            }
            options.defaultBackends = names
        }
        return (options, parsed.has("check"))
    }

    /// Keeps chimed's capabilities out of the programs it starts: commands, actions and generators.
    ///
    /// The system unit runs chimed as a user of its own with `CAP_SYS_NICE` as an ambient capability, the only way
    /// such a service holds one: libdispatch raises the priority of the threads that serve chimed's scheduler
    /// queue. An ambient capability is passed on across exec, so without this every program chimed runs would hold
    /// it too. Call it before the first thread is created: each thread has capability sets of its own, copied from
    /// the thread that creates it.
    /// - Returns: why the ambient set could not be emptied, or `nil` when it was (or the kernel has none).
    public static func keepCapabilitiesFromChildren() -> String? {
        let result = chime_clear_ambient_capabilities()
        guard result != 0 && result != -EINVAL else { return nil }
        return String(cString: strerror(-result))
    }

    /// `chimed --check`: loads everything as a rebuild would and prints what would be armed.
    /// Returns the exit status: 0 when no file had errors.
    public static func check(_ options: DaemonOptions, environment: [String: String], now: Date) -> Int32 {
        let zone = LocalZone.resolve(tz: environment["TZ"])
        let configuration = DaemonConfiguration.load(directories: options.configDirectories)
        let loader = ScheduleLoader.forInstance(
            options: options, environment: environment, configuration: configuration,
            wakeSystemRefusal: SystemWaking.probe())
        let named =
            options.configDirectories
            != DaemonOptions.defaults(for: options.instance, environment: environment).configDirectories
        let directoryProblems = ScheduleCheck.directoryProblems(options.configDirectories, named: named)
        var loaded: LoadedSchedule
        do {
            loaded = try loader.load(systemZone: zone)
        } catch {
            FileHandle.standardError.write(Data("chimed: \(error)\n".utf8))
            return 1
        }
        for entry in loaded.notifications {
            if let past = ScheduleCheck.pastProblem(
                entry.notification, source: entry.source, line: entry.line, now: now, systemZone: zone)
            {
                loaded.problems.append(past)
            }
        }
        loaded.problems = loaded.problems.sortedByPlace()
        for problem in directoryProblems + configuration.diagnostics + loaded.problems {
            FileHandle.standardError.write(Data("\(problem)\n".utf8))
        }
        let configurationErrors = configuration.diagnostics.filter { $0.severity == .error }.count
        let directoryErrors = directoryProblems.filter { $0.severity == .error }.count
        let directoryWarnings = directoryProblems.count - directoryErrors
        var lines: [String] = []
        var scheduled = 0
        let histories = FileHistoryStore.peek(directory: options.stateDirectory)
        for entry in loaded.notifications {
            let notification = entry.notification
            let history = histories[notification.id] ?? DeliveryHistory(firstSeen: now)
            let next =
                notification.isEnabled
                ? notification.trigger.nextOccurrence(after: now, history: history, systemZone: zone) : nil
            let zoneOfEntry = notification.trigger.timeZone ?? zone
            if next != nil { scheduled += 1 }
            let when =
                next.map { Timestamp.format($0, zone: zoneOfEntry) ?? "?" }
                ?? (notification.isEnabled ? "nothing left to fire" : "disabled")
            lines.append("  \(notification.id): \(when) — \(notification.trigger.summary)")
        }
        let backends = configuration.backendsWithoutDeliver(override: options.defaultBackends)
        print(
            "Configuration: \(options.configDirectories.joined(separator: ", "))\n"
                + "chimed.conf: \(configuration.paths.isEmpty ? "none (defaults)" : configuration.paths.joined(separator: ", "))"
                + "\(configurationErrors > 0 ? " (\(configurationErrors) error(s))" : "")\n"
                + "Default backends: \(backends.joined(separator: " ")); presentation: \(configuration.presentation)\n"
                + "Added at run time: \(options.addedDirectory)\n"
                + "\(loaded.notifications.count) notification(s) loaded, \(scheduled) scheduled, "
                + "\(loaded.errorCount + directoryErrors) error(s), "
                + "\(loaded.problems.count - loaded.errorCount + directoryWarnings) warning(s).")
        for line in lines { print(line) }
        return loaded.errorCount == 0 && configurationErrors == 0 && directoryErrors == 0 ? 0 : 1
    }
}
