import ChimeCore
import ChimeDaemon
import Foundation

/// What `chimectl list/next/status/reload` read: the running daemon's `schedule.json` and PID file.
struct InstanceView {
    struct Entry {
        var id: String
        var title: String
        var next: Date
        var nextLocal: String
        var trigger: String
        var source: String
        var backends: [String]
        var thread: String?
        /// How much later than its occurrence this delivery comes (`RandomizedDelaySec=`), in microseconds.
        var delay: Int64 = 0
    }

    let options: DaemonOptions
    /// `--runtime-dir` without `--state-dir`, and no chimed running from it to say which state directory is its
    /// own: `options.stateDirectory` is then only the default's, which is another instance's.
    let runtimeDirectoryWithoutItsState: String?
    let environment: [String: String]
    var pid: Int32?
    var isRunning: Bool
    var snapshot: [String: Any]?

    static let instanceOptions: Set<String> = ["config-dir", "state-dir", "runtime-dir"]

    /// The instance named by `--user`/`--runtime-dir` etc. (as chimed takes them).
    init(_ arguments: ParsedArguments, environment: [String: String]) {
        var options = Self.options(arguments, environment: environment)
        self.environment = environment
        let pidText = try? String(contentsOfFile: options.pidPath, encoding: .utf8)
        pid = pidText.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        isRunning = pid.map(Self.isChimed) ?? false
        snapshot = Self.readSnapshot(options.snapshotPath)
        // chimed writes the snapshot just after READY=1: right after a start, wait briefly for this process's own.
        if isRunning, let pid {
            let deadline = Date().addingTimeInterval(2)
            while (snapshot?["pid"] as? Int).map(Int32.init) != pid && Date() < deadline {
                usleep(10_000)
                snapshot = Self.readSnapshot(options.snapshotPath)
            }
        }
        var unknownState: String?
        if let runtime = arguments.value("runtime-dir"), arguments.value("state-dir") == nil {
            if isRunning, let state = snapshot?["state_directory"] as? String {
                options.stateDirectory = state
            } else {
                unknownState = runtime
            }
        }
        self.options = options
        runtimeDirectoryWithoutItsState = unknownState
    }

    /// The directories of the instance that `--user`, `--config-dir`, `--state-dir` and `--runtime-dir` name.
    static func options(_ arguments: ParsedArguments, environment: [String: String]) -> DaemonOptions {
        var options = DaemonOptions.defaults(for: arguments.has("user") ? .user : .system, environment: environment)
        if let runtime = arguments.value("runtime-dir") { options.runtimeDirectory = runtime }
        if let state = arguments.value("state-dir") { options.stateDirectory = state }
        let directories = arguments.all("config-dir")
        if !directories.isEmpty { options.configDirectories = directories }
        return options
    }

    static func readSnapshot(_ path: String) -> [String: Any]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// Whether `pid` is a live chimed (not a recycled process id).
    static func isChimed(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
        return name.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("chimed")
    }

    /// How many notifications the running chimed has scheduled: `scheduled_count`, or (from an older chimed) the
    /// length of the list.
    var scheduledCount: Int {
        snapshot?["scheduled_count"] as? Int ?? (snapshot?["scheduled"] as? [Any])?.count ?? 0
    }

    /// The entries listed in the snapshot: the soonest 1,000 and the runtime requests (`ScheduleReporter.listedLimit`).
    var entries: [Entry] {
        let list = snapshot?["scheduled"] as? [[String: Any]] ?? []
        return list.compactMap { item in
            guard let id = item["id"] as? String, let nextText = item["next"] as? String,
                let next = Timestamp.parseISO8601(nextText)
            else { return nil }
            return Entry(
                id: id, title: item["title"] as? String ?? "", next: next,
                nextLocal: item["next_local"] as? String ?? "",
                trigger: item["trigger"] as? String ?? "", source: item["source"] as? String ?? "",
                backends: item["backends"] as? [String] ?? [], thread: item["thread"] as? String,
                delay: (item["delay_usec"] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// Every problem the last rebuild found, as the snapshot lists them.
    var problems: [String] { snapshot.map(Self.problems(in:)) ?? [] }

    static func problems(in snapshot: [String: Any]) -> [String] { snapshot["problems"] as? [String] ?? [] }

    /// How many problems `status` and `reload` print; the rest are counted.
    static let shownProblems = 20

    func addProblems(to lines: inout LabelledLines) {
        Self.addProblems(problems, to: &lines)
    }

    /// `Problems:` and one problem a line, at most `shownProblems`, then how many more.
    static func addProblems(_ problems: [String], to lines: inout LabelledLines) {
        for (index, problem) in problems.prefix(shownProblems).enumerated() {
            lines.add(index == 0 ? "Problems:" : "", problem)
        }
        if problems.count > shownProblems {
            lines.add("", "… and \(problems.count - shownProblems) more ('chimed --check' lists them all)")
        }
    }

    /// A notification with nothing left to fire, as the snapshot lists it (`idle_entries`).
    struct IdleEntry {
        var id: String
        var title: String
        var trigger: String
        var source: String
        var isEnabled: Bool
        var thread: String?
    }

    /// The notifications with nothing left to fire that the snapshot lists (at most 1,000).
    var idleEntries: [IdleEntry] {
        let list = snapshot?["idle_entries"] as? [[String: Any]] ?? []
        return list.compactMap { item in
            guard let id = item["id"] as? String else { return nil }
            return IdleEntry(
                id: id, title: item["title"] as? String ?? "", trigger: item["trigger"] as? String ?? "",
                source: item["source"] as? String ?? "", isEnabled: item["enabled"] as? Bool ?? true,
                thread: item["thread"] as? String)
        }
    }

    /// Says why there is nothing to show, when the daemon is not running.
    func requireRunning() throws {
        guard isRunning, snapshot != nil else {
            throw CommandFailure("chimed is not running (no live process in \(options.pidPath)); \(startHint).")
        }
    }

    /// How to start the instance these options name: through systemd for the default directories, else `chimed`
    /// with the same directories.
    var startHint: String {
        let defaults = DaemonOptions.defaults(for: options.instance, environment: environment)
        var arguments: [String] = []
        if options.configDirectories != defaults.configDirectories {
            arguments += options.configDirectories.map { "--config-dir=\($0)" }
        }
        if options.stateDirectory != defaults.stateDirectory {
            arguments.append("--state-dir=\(options.stateDirectory)")
        }
        if options.runtimeDirectory != defaults.runtimeDirectory {
            arguments.append("--runtime-dir=\(options.runtimeDirectory)")
        }
        if options.instance == .user { arguments.insert("--user", at: 0) }
        guard arguments.count > (options.instance == .user ? 1 : 0) else {
            return "start it with "
                + (options.instance == .user ? "'systemctl --user start chimed'" : "'systemctl start chimed'")
                + " or '\((["chimed"] + arguments).joined(separator: " "))'"
        }
        return "start it with '\((["chimed"] + arguments).joined(separator: " "))'"
    }

    /// The configuration directories, for messages about what was not found in them.
    var searchedDescription: String { options.configDirectories.joined(separator: ", ") }
}

extension ParsedArguments.Grammar {
    /// The options every command that talks to an instance takes, as chimed does.
    static func instance(valued: Set<String> = [], flags: Set<String> = []) -> Self {
        .init(valued: valued.union(InstanceView.instanceOptions), flags: flags.union(["user"]))
    }
}
