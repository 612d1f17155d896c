import ChimeCore
import ChimeDaemon
import ChimePlatform
import Foundation

/// `chimectl verify`: checks notification files the way `systemd-analyze verify` checks units, and lists when
/// the valid ones fire next.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "Check notification files and show when they fire next"
    static let usage = "chimectl verify [--iterations=N] [--base-time=TIMESTAMP] [--json] FILE|DIR..."
    static let help = """
        Checks each NAME.notification FILE (with its NAME.notification.d/*.conf drop-ins), or every notification
        in each configuration DIR (later DIRs lose to earlier ones for the same name, as in chimed's search
        path), and the generators in DIR/generators.d/. Every problem is printed to standard error as
        FILE:LINE:COLUMN: REASON, sorted by file and line, as 'chimed --check' prints them: a file chimed would
        refuse for its owner or mode, a backend chimed.conf does not define, an At= already past, an empty DIR.
        Unknown sections, keys and backends are warnings, with what they most likely misspell. For the
        notifications without errors, the next fire dates are listed in local time, as the instance (--user,
        --state-dir) computes them: an Every= or Count= without From= counts from when it first saw the
        notification, or from the base time when it has not.

        Options:
          --iterations=N        how many fire dates to list per notification (default 1)
          --base-time=TS        list fire dates after this timestamp instead of now
          --json                one JSON object per notification and line:
                                {"id":…,"file":…,"valid":true,"next":["2026-12-01T07:00:00Z",…],"problems":[…]}
          -h, --help            show this help

        Exit status: 0 if nothing had errors (warnings are fine), 1 otherwise, 64 on usage errors.
        """
    static let grammar = ParsedArguments.Grammar(valued: ["iterations", "base-time"], flags: ["json"])

    static func run(_ arguments: ParsedArguments, in context: CommandContext) throws -> ExitCode {
        guard !arguments.operands.isEmpty else { throw UsageError("expected notification files or directories") }
        let iterations = try arguments.iterations()
        let base = try arguments.baseTime(in: context)

        var found: [NotificationFile] = []
        var problems: [UnitFileDiagnostic] = []
        var status = ExitCode.success
        // Directories form one search path, earlier winning, as chimed reads them; files stand alone.
        var directories: [String] = []
        for operand in arguments.operands {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory), isDirectory.boolValue {
                directories.append(operand)
                continue
            }
            switch Self.collect(operand) {
            case .success(let (files, diagnostics)):
                found += files
                problems += diagnostics
            case .failure(let message):
                context.errors.line("\(operand): \(message)")
                status = .failure
            }
        }
        if !directories.isEmpty {
            let (trusted, refused) = NotificationDirectorySource.trusted(directories)
            problems += refused
            let search = NotificationSearch(searching: trusted, probe: PosixFileKindProbe())
            found += search.files
            problems += search.diagnostics + ScheduleCheck.directoryProblems(directories, named: true)
        }
        // chimed.conf of the directories checked, or of the instance for single files: it names the backends.
        let instance = InstanceView.options(arguments, environment: context.environment)
        let configuration = DaemonConfiguration.load(
            directories: directories.isEmpty ? instance.configDirectories : directories)
        var loader = NotificationLoader(systemZone: context.localZone, zones: context.zones)
        loader.knownBackends = configuration.backendNames
        loader.minimumInterval = configuration.minimumInterval

        // Every file first, as chimed loads them; generators after, as chimed runs them.
        var results: [(file: NotificationFile, result: NotificationLoader.Result)] = []
        for file in found {
            if case .loaded = file.content, let objection = NotificationDirectorySource.objection(to: file) {
                problems.append(objection)
                results.append(
                    (file, NotificationLoader.Result(id: file.id, notification: nil, diagnostics: [objection])))
                continue
            }
            var result = loader.load(file)
            if let notification = result.notification,
                let past = ScheduleCheck.pastProblem(
                    notification, source: file.path, line: nil, now: base, systemZone: context.localZone)
            {
                result.diagnostics.append(past)
            }
            problems += result.diagnostics
            results.append((file, result))
        }
        var generated = LoadedSchedule(systemZone: context.localZone)
        if !directories.isEmpty {
            let generators = GeneratorSource(
                directories: directories, environment: context.environment, timeout: configuration.generatorTimeout,
                outputLimit: configuration.generatorOutputLimit)
            do {
                try generators.load(into: &generated, loader: loader)
            } catch {
                context.errors.line("chimectl verify: \(error)")
                status = .failure
            }
            // As chimed loads them: a generator's notification whose id a file or an earlier line took is left out.
            var seen = Set(results.compactMap { $0.result.notification == nil ? nil : $0.file.id })
            generated.notifications.removeAll { entry in
                guard !seen.insert(entry.notification.id).inserted else { return false }
                generated.problems.append(
                    ScheduleLoader.duplicate(entry.notification.id, source: entry.source, line: entry.line))
                return true
            }
            for entry in generated.notifications {
                if let past = ScheduleCheck.pastProblem(
                    entry.notification, source: entry.source, line: entry.line, now: base,
                    systemZone: context.localZone)
                {
                    generated.problems.append(past)
                }
            }
            problems += generated.problems
        }
        for problem in problems.sortedByPlace() { context.errors.line(problem.description) }
        if problems.contains(where: { $0.severity == .error }) { status = .failure }

        var rows = ScheduleTable()
        let listed =
            results.map { (id: $0.file.id, path: $0.file.path, line: Int?.none, result: $0.result) }
            + generated.notifications.map { entry in
                (
                    id: entry.notification.id, path: entry.source, line: entry.line,
                    result: NotificationLoader.Result(
                        id: entry.notification.id, notification: entry.notification, diagnostics: [])
                )
            }
        // As the instance computes them: what it recorded of a notification it has seen counts.
        let histories = FileHistoryStore.peek(directory: instance.stateDirectory)
        for (id, path, line, result) in listed {
            let history = histories[id] ?? DeliveryHistory(firstSeen: base)
            let fires =
                result.notification.map { notification in
                    notification.isEnabled
                        ? notification.trigger.occurrences(
                            after: base, history: history, systemZone: context.localZone, limit: iterations) : []
                } ?? []
            if arguments.has("json") {
                var members: [(String, JSONValue)] = [("id", .string(id)), ("file", .string(path))]
                if let line { members.append(("line", .number(Int64(line)))) }
                members.append(("valid", .bool(!result.hasErrors)))
                if result.isMasked { members.append(("masked", .bool(true))) }
                if let notification = result.notification, !notification.isEnabled {
                    members.append(("enabled", .bool(false)))
                }
                members.append(("next", .array(fires.map { .string(Timestamp.iso8601($0)) })))
                members.append(("problems", .array(result.diagnostics.map { .string($0.description) })))
                context.output.line(JSONValue.object(members).serialized)
                continue
            }
            guard let notification = result.notification else {
                if result.isMasked { rows.add(id: id, next: "masked", left: "", what: path) }
                continue
            }
            let what = notification.trigger.summary
            if !notification.isEnabled {
                rows.add(id: id, next: "disabled (Enabled=no)", left: "", what: what)
            } else if fires.isEmpty {
                rows.add(id: id, next: Self.whyNothing(notification.trigger, base: base), left: "", what: what)
            }
            for (index, fire) in fires.enumerated() {
                rows.add(
                    id: index == 0 ? id : "",
                    next: Timestamp.format(fire, zone: notification.trigger.timeZone ?? context.localZone) ?? "-",
                    left: Timestamp.relativeDescription(of: fire, now: context.now),
                    what: index == 0 ? what : "")
            }
        }
        if !arguments.has("json") && !rows.isEmpty {
            context.output.write(rows.rendered())
        }
        return status
    }

    enum Collected {
        case success(([NotificationFile], [UnitFileDiagnostic]))
        case failure(String)
    }

    /// The notification named by a file operand, with its drop-ins.
    static func collect(_ operand: String) -> Collected {
        guard FileManager.default.fileExists(atPath: operand) else {
            return .failure("No such file or directory")
        }
        let url = URL(fileURLWithPath: operand)
        guard url.pathExtension == "notification" else {
            return .failure("not a notification file (expected NAME.notification)")
        }
        let directory = (operand as NSString).deletingLastPathComponent
        let search = NotificationSearch(searching: [directory.isEmpty ? "." : directory], probe: PosixFileKindProbe())
        let id = url.deletingPathExtension().lastPathComponent
        let files = search.files.filter { $0.id == id }
        return .success((files, search.diagnostics.filter { $0.location.file.contains("/\(id).notification") }))
    }

    static func whyNothing(_ trigger: Trigger, base: Date) -> String {
        if trigger.isOneShot, let at = trigger.instants.first, at <= base {
            return "never (At= is past; skipped)"
        }
        if let until = trigger.until, until <= base { return "never (Until= is past)" }
        return "never"
    }
}

/// The listing of `verify`: id, next fire in local time, time left, and the trigger.
struct ScheduleTable {
    private var rows: [[String]] = [["ID", "NEXT", "LEFT", "TRIGGER"]]

    mutating func add(id: String, next: String, left: String, what: String) {
        rows.append([id, next, left, what])
    }

    var isEmpty: Bool { rows.count == 1 }

    func rendered() -> String {
        var widths = [Int](repeating: 0, count: 4)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").replacingOccurrences(of: " +$", with: "", options: .regularExpression) + "\n"
        }.joined()
    }
}
