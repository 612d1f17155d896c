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

/// A failure a command reports on standard error with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ParsedArguments.Grammar {
    /// The options every command that talks to an instance takes, as chimed does.
    static func instance(valued: Set<String> = [], flags: Set<String> = []) -> Self {
        .init(valued: valued.union(InstanceView.instanceOptions), flags: flags.union(["user"]))
    }
}

/// `chimectl list`: every scheduled notification with its next fire in local time, soonest first.
struct ListCommand: Command {
    static let name = "list"
    static let summary = "List the scheduled notifications, soonest first"
    static let usage = "chimectl list [--all] [--thread=NAME] [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Lists the notifications the running chimed has armed, with the next fire date in the notification's
        local time, the time left, and the trigger. Reads RUNTIME_DIR/schedule.json, which chimed rewrites after
        every rebuild and delivery; it lists the 1,000 soonest (and every one added with 'chimectl add'), and
        the count of all.

        Options:
          --all                 also the notifications with nothing left to fire: disabled (Enabled=no), or
                                whose occurrences are all past (listed after the others, by id)
          --thread=NAME         only the notifications of the thread NAME (Thread=)
          --json                one JSON object per notification and line:
                                {"id":…,"title":…,"next":"2026-11-30T08:55:00.000000Z","next_local":…,"trigger":…}
                                (and "thread" for one that has a Thread=, "delay_usec" for one whose delivery
                                a RandomizedDelaySec= delays: "next" is when it comes, that much after the
                                occurrence)
                                (with --all, "next" is null for those with nothing to fire, and "enabled" says
                                whether they are disabled)
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, looked at for files changed since
                                chimed's last rebuild; repeatable
          --state-dir=DIR       the instance's state directory
          -h, --help            show this help

        Exit status: 0, or 1 when chimed is not running.
        """
    static let grammar = ParsedArguments.Grammar.instance(valued: ["thread"], flags: ["json", "all"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        view.warnIfSourcesChanged(context)
        let thread = arguments.value("thread")
        let entries = view.entries.filter { thread == nil || $0.thread == thread }
        let idle = (arguments.has("all") ? view.idleEntries : []).filter { thread == nil || $0.thread == thread }
        if arguments.has("json") {
            for entry in entries { context.output.line(Self.json(entry).serialized) }
            for entry in idle {
                context.output.line(
                    JSONValue.object(
                        [
                            ("id", .string(entry.id)), ("title", .string(entry.title)), ("next", .null),
                            ("trigger", .string(entry.trigger)), ("source", .string(entry.source)),
                            ("enabled", .bool(entry.isEnabled)),
                        ] + (entry.thread.map { [("thread", JSONValue.string($0))] } ?? [])
                    ).serialized)
            }
            return .success
        }
        var table = ScheduleTable()
        for entry in entries {
            // To the second: the microseconds of a random delay say nothing.
            let shown = entry.delay >= 1_000_000 ? (entry.delay + 500_000) / 1_000_000 * 1_000_000 : entry.delay
            let delay = entry.delay > 0 ? " (delayed \(Timespan(microseconds: UInt64(shown))))" : ""
            table.add(
                id: entry.id, next: entry.nextLocal,
                left: Timestamp.relativeDescription(of: entry.next, now: context.now), what: entry.trigger + delay)
        }
        for entry in idle {
            table.add(
                id: entry.id, next: entry.isEnabled ? "never (nothing left to fire)" : "disabled (Enabled=no)",
                left: "", what: entry.trigger)
        }
        if !table.isEmpty { context.output.write(table.rendered()) }
        let count = thread == nil ? view.scheduledCount : entries.count
        var summary =
            "\n\(count) scheduled" + (thread.map { " in the thread '\($0)'" } ?? "") + "."
            + (count > entries.count ? " (Listed: the \(entries.count) soonest.)" : "")
        if arguments.has("all") {
            let idleCount = view.snapshot?["idle_count"] as? Int ?? idle.count
            summary +=
                " \(idleCount) with nothing to fire."
                + (idleCount > idle.count ? " (Listed: \(idle.count) of them.)" : "")
        }
        context.output.line(summary)
        return .success
    }

    static func json(_ entry: InstanceView.Entry) -> JSONValue {
        .object(
            [
                ("id", .string(entry.id)), ("title", .string(entry.title)),
                ("next", .string(Timestamp.iso8601(entry.next, fraction: .microseconds))),
                ("next_local", .string(entry.nextLocal)), ("trigger", .string(entry.trigger)),
                ("source", .string(entry.source)), ("backends", .array(entry.backends.map(JSONValue.string))),
            ] + (entry.thread.map { [("thread", JSONValue.string($0))] } ?? [])
                + (entry.delay > 0 ? [("delay_usec", JSONValue.number(entry.delay))] : []))
    }
}

/// `chimectl next`: the notification that fires next.
struct NextCommand: Command {
    static let name = "next"
    static let summary = "Show the notification that fires next"
    static let usage = "chimectl next [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Shows which notification the running chimed will deliver next, and when (in its local time).

        Options:
          --json                {"id":…,"title":…,"next":…,"next_local":…,"trigger":…}, or null
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
          --state-dir=DIR       the instance's state directory, for the hint to start it
          -h, --help            show this help

        Exit status: 0, or 1 when chimed is not running.
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        guard let first = view.entries.first else {
            context.output.line(arguments.has("json") ? "null" : "Nothing is scheduled.")
            return .success
        }
        if arguments.has("json") {
            context.output.line(ListCommand.json(first).serialized)
        } else {
            let left = Timestamp.relativeDescription(of: first.next, now: context.now)
            context.output.line("\(first.id): \(first.title)\n  at \(first.nextLocal) (\(left))\n  \(first.trigger)")
        }
        return .success
    }
}

/// `chimectl status`: whether chimed runs, and what it holds.
struct StatusCommand: Command {
    static let name = "status"
    static let summary = "Show whether chimed runs, how much it holds, and its last rebuild and error"
    static let usage = "chimectl status [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Shows whether chimed is running (and its process id), how many notifications are scheduled, the next
        one, when the schedule was last rebuilt, the first error that rebuild found, and every problem it found
        (errors and warnings, by file and line; the first 20, and how many more).

        Options:
          --json                {"running":…,"pid":…,"scheduled":…,"next":…,"badge":…,"last_rebuild":…,
                                "last_error":…,"runtime_directory":…,"problems":[…]}
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, looked at for files changed since
                                chimed's last rebuild; repeatable
          --state-dir=DIR       the instance's state directory
          -h, --help            show this help

        Exit status: 0 when chimed runs, 3 when it does not (as systemctl status).
        """
    static let grammar = ParsedArguments.Grammar.instance(flags: ["json"])
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        view.warnIfSourcesChanged(context)
        let entries = view.isRunning ? view.entries : []
        let snapshot = view.isRunning ? view.snapshot : nil
        let lastRebuild = snapshot?["last_rebuild"] as? String
        let lastError = snapshot?["last_error"] as? String
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("running", .bool(view.isRunning)), ("pid", view.isRunning ? .number(Int64(view.pid ?? 0)) : .null),
                    ("scheduled", .number(Int64(view.isRunning ? view.scheduledCount : 0))),
                    ("next", entries.first.map { ListCommand.json($0) } ?? .null),
                    ("badge", .number(Int64(snapshot?["badge"] as? Int ?? 0))),
                    ("last_rebuild", lastRebuild.map(JSONValue.string) ?? .null),
                    ("last_error", lastError.map(JSONValue.string) ?? .null),
                    ("runtime_directory", .string(view.options.runtimeDirectory)),
                    ("problems", .array(view.problems.map(JSONValue.string))),
                ]).serialized)
        } else {
            var lines = LabelledLines()
            lines.add("State:", view.isRunning ? "running (pid \(view.pid ?? 0))" : "not running")
            lines.add("Runtime dir:", view.options.runtimeDirectory)
            if view.isRunning {
                lines.add("Scheduled:", String(view.scheduledCount))
                if let first = entries.first {
                    let left = Timestamp.relativeDescription(of: first.next, now: context.now)
                    lines.add("Next:", "\(first.id) at \(first.nextLocal) (\(left))")
                }
                lines.add("Badge:", String(snapshot?["badge"] as? Int ?? 0))
                if let quiet = snapshot?["quiet"] as? [String: Any], quiet["quiet"] as? Bool == true {
                    let until = (quiet["until_local"] as? String).map { " until \($0)" } ?? ""
                    let reasons = (quiet["reasons"] as? [String] ?? []).joined(separator: ", ")
                    lines.add("Quiet:", "yes (\(reasons))\(until), \(quiet["held"] as? Int ?? 0) held")
                }
                let rebuilt = lastRebuild.flatMap(Timestamp.parseISO8601).flatMap {
                    Timestamp.format($0, zone: context.localZone)
                }
                lines.add("Last rebuild:", rebuilt ?? lastRebuild ?? "-")
                lines.add("Last error:", lastError ?? "none")
                view.addProblems(to: &lines)
            }
            context.output.write(lines.rendered())
        }
        return view.isRunning ? .success : .notRunning
    }
}

/// `chimectl reload`: asks chimed to rebuild the schedule (SIGHUP) and waits until it has.
struct ReloadCommand: Command {
    static let name = "reload"
    static let summary = "Make chimed rebuild the whole schedule now (SIGHUP)"
    static let usage = "chimectl reload [--json] [--user] [--runtime-dir=DIR]"
    static let help = """
        Sends SIGHUP to the running chimed, which reloads every notification and rebuilds the whole schedule,
        and waits (up to 10 s) until the rebuild is done; then prints the new count, the first error and every
        problem the rebuild found (the first 20, and how many more).
        'systemctl reload chimed' does the same through systemd.

        Options:
          --json                {"scheduled":…,"last_rebuild":…,"last_error":…,"problems":[…]}
          --user                the calling user's instance
          --runtime-dir=DIR     the instance's runtime directory
          --config-dir=DIR      the instance's configuration directories, for the hint to start it
          --state-dir=DIR       the instance's state directory, for the hint to start it
          -h, --help            show this help

        Exit status: 0 when the rebuild finished, 1 otherwise.
        """
    static let grammar = ParsedArguments.Grammar.instance()
    static let takesOperands = false

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        let view = InstanceView(arguments, environment: context.environment)
        try view.requireRunning()
        let snapshot = try view.rebuild(waiting: { context.errors.line("chimectl: \($0)") })
        let count = snapshot["scheduled_count"] as? Int ?? (snapshot["scheduled"] as? [Any])?.count ?? 0
        let lastError = snapshot["last_error"] as? String
        if arguments.has("json") {
            context.output.line(
                JSONValue.object([
                    ("scheduled", .number(Int64(count))),
                    ("last_rebuild", (snapshot["last_rebuild"] as? String).map(JSONValue.string) ?? .null),
                    ("last_error", lastError.map(JSONValue.string) ?? .null),
                    ("problems", .array(InstanceView.problems(in: snapshot).map(JSONValue.string))),
                ]).serialized)
            return .success
        }
        context.output.line("Reloaded: \(count) scheduled.")
        if let lastError { context.output.line("Last error: \(lastError)") }
        var lines = LabelledLines()
        InstanceView.addProblems(InstanceView.problems(in: snapshot), to: &lines)
        if !lines.isEmpty { context.output.write(lines.rendered()) }
        return .success
    }
}
