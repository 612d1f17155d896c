import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// Notifications printed by the executables in `generators.d/` of each configuration directory, run on every
/// rebuild: how data that lives elsewhere (an exam list, a calendar) becomes notifications.
///
/// - For each name, the first directory that has an executable of that name wins, as with notification files; a
///   symlink to `/dev/null` masks the name. Names starting with `.`, backup files and non-executables are ignored.
/// - A generator or `generators.d` that is not owned by root or chimed's user, or is writable by its group or by
///   others, is refused (`FileTrust`).
/// - Each generator runs as described in `GeneratorRunner`, with `CHIME_CONFIG_DIR` set to its configuration
///   directory (absolute) and as its working directory. Generators run concurrently; the results are taken in
///   name order.
/// - A generator that exits 0 contributes its lines (`GeneratorOutput`), each validated like a file; a bad line is
///   reported and skipped. One that exits non-zero, is killed, times out or prints too much contributes nothing:
///   it may have stopped halfway, and a partial schedule would silently lack notifications.
public struct GeneratorSource: ScheduleSource {
    public var directories: [String]
    /// What generators inherit, less the service manager's variables that are meant for chimed alone.
    public var environment: [String: String]
    /// How long each generator may run, counted until it has exited and closed its output.
    public var timeout: Duration
    /// The most bytes a generator may print on stdout.
    public var outputLimit: Int
    /// What the generators printed at the rebuild before, with the notifications it made: a generator that prints
    /// the same again contributes them without its lines being read again.
    public var reuse: GeneratorReuse?
    var trust = FileTrust()

    public static let defaultTimeout: Duration = .seconds(10)
    public static let defaultOutputLimit = 4 << 20

    public init(
        directories: [String], environment: [String: String] = [:], timeout: Duration = defaultTimeout,
        outputLimit: Int = defaultOutputLimit, reuse: GeneratorReuse? = nil
    ) {
        self.directories = directories
        self.environment = environment
        self.timeout = timeout
        self.outputLimit = outputLimit
        self.reuse = reuse
    }

    /// A generator chosen to run.
    struct Generator: Sendable {
        var name: String
        /// As found in the configuration directory given: used in messages and as the notifications' source.
        var path: String
        /// The configuration directory, made absolute for the generator.
        var configDirectory: String
    }

    public func load(into schedule: inout LoadedSchedule, loader: NotificationLoader) throws(ScheduleLoadError) {
        let generators = find(problems: &schedule.problems)
        let runs = Locked<[String: GeneratorRun]>([:])
        let runner = GeneratorRunner(timeout: timeout, outputLimit: outputLimit)
        // One thread each: a generator is mostly waited for.
        ParallelWork.perform(iterations: generators.count, threads: generators.count) { index in
            let generator = generators[index]
            let run = runner.run(
                generator.configDirectory + "/generators.d/" + generator.name,
                environment: environment(for: generator), workingDirectory: generator.configDirectory)
            runs.withLock { $0[generator.name] = run }
        }
        let reusable = reuse.flatMap { $0.readsAlike(loader) ? $0 : nil }
        for generator in generators {
            // Taken out, so that the output's chunks are held once and go as they are read.
            let run = runs.withLock { $0.removeValue(forKey: generator.name)! }
            collect(
                consume run, of: generator, into: &schedule, loader: loader, reusing: reusable?.outputs[generator.path])
        }
    }

    func environment(for generator: Generator) -> [String: String] {
        var result = CommandRunner.programEnvironment(base: environment)
        result["CHIME_CONFIG_DIR"] = generator.configDirectory
        return result
    }

    // MARK: Finding generators

    /// The generators to run, sorted by name.
    func find(problems: inout [UnitFileDiagnostic]) -> [Generator] {
        // nil for a masked name.
        var byName: [String: Generator?] = [:]
        let probe = PosixFileKindProbe()
        for directory in directories {
            let shown = (directory.hasSuffix("/") ? directory : directory + "/") + "generators.d"
            var status = stat()
            guard lstat(shown, &status) == 0 else { continue }
            guard probe.kind(of: shown) == .directory else {
                problems.append(
                    UnitFileDiagnostic(.warning, at: UnitFileLocation(file: shown), "Not a directory, ignoring."))
                continue
            }
            if let objection = trust.objection(
                to: shown, subject: "Directory", action: "run the generators in it")
            {
                problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: shown), objection))
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: shown)
            } catch {
                let message = "Failed to list directory: \(GeneratorRunner.reason(error))."
                problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: shown), message))
                continue
            }
            for name in names.sorted(by: { $0.precedesInByteOrder($1) })
            where byName[name] == nil && !Self.isHiddenOrBackup(name) {
                let path = shown + "/" + name
                switch probe.kind(of: path) {
                case .null:
                    byName[name] = .some(nil)
                case .file:
                    // A file that is not executable is not a generator (a README, a data file), and does not
                    // take the name from later directories.
                    if stat(path, &status) == 0 && status.st_mode & 0o111 == 0 { continue }
                    byName[name] = Generator(name: name, path: path, configDirectory: Self.absolute(directory))
                case .directory, .other:
                    continue
                }
            }
        }
        var generators: [Generator] = []
        for name in byName.keys.sorted(by: { $0.precedesInByteOrder($1) }) {
            guard let generator = byName[name] ?? nil else { continue }
            if let objection = trust.objection(to: generator.path, subject: "Generator", action: "run it") {
                problems.append(UnitFileDiagnostic(.error, at: UnitFileLocation(file: generator.path), objection))
                continue
            }
            generators.append(generator)
        }
        return generators
    }

    /// Dotfiles, editor backups and package managers' leftovers, which systemd skips in its `.d` directories too.
    static func isHiddenOrBackup(_ name: String) -> Bool {
        let suffixes = [
            "~", ".swp", ".dpkg-old", ".dpkg-new", ".dpkg-dist", ".dpkg-bak", ".dpkg-tmp", ".rpmnew", ".rpmsave",
            ".rpmorig", ".ucf-old", ".ucf-new", ".ucf-dist",
        ]
        return name.hasPrefix(".") || suffixes.contains { name.hasSuffix($0) }
    }

    static func absolute(_ directory: String) -> String {
        var path = directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    // MARK: Results

    private func collect(
        _ run: consuming GeneratorRun, of generator: Generator, into schedule: inout LoadedSchedule,
        loader: NotificationLoader,
        reusing previous: GeneratorReuse.Output?
    ) {
        let location = UnitFileLocation(file: generator.path)
        var run = run
        if case .finished(var outcome) = run, outcome.ending == .printedTooMuch {
            // What it printed within the limit is whole lines of a program that ran as it should: kept, so that one
            // calendar of too many alarms does not cost the person every other one.
            outcome.output.keepLines(within: outputLimit)
            let kept = outcome.output.count
            outcome.ending = .exited(status: 0)
            run = .finished(outcome)
            schedule.problems.append(
                UnitFileDiagnostic(
                    .error, at: location,
                    "Generator printed more than \(InputLimits.size(outputLimit)) (GeneratorMaxOutput=); keeping the "
                        + "\(InputLimits.grouped(kept)) bytes of whole lines within it and ignoring the rest."))
        }
        switch consume run {
        case .finished(var outcome) where outcome.ending == .exited(status: 0):
            let fingerprint = OutputFingerprint(outcome.output)
            let start = schedule.notifications.count
            var problems: [UnitFileDiagnostic] = []
            var lineHashes: [Int] = []
            if let previous, previous.fingerprint == fingerprint {
                problems = previous.problems
                lineHashes = previous.lineHashes
                if schedule.notifications.isEmpty {
                    // All of the installed schedule (the usual case, one generator) shares its storage; appended
                    // to other notifications, each would be copied.
                    schedule.notifications = Array(previous.notifications)
                } else {
                    schedule.notifications += previous.notifications
                }
            } else {
                let source = generator.path
                let output = outcome.output
                outcome.output = LineChunks()
                let earlier = previous.map { PreviousNotifications($0.notifications, lineHashes: $0.lineHashes) }
                let loaded = GeneratorOutput.validated(
                    parsing: consume output, path: generator.path, by: loader, problems: &problems,
                    lineHashes: &lineHashes, earlier: earlier
                ) { line, result in
                    var result = result
                    return LoadedNotification(notification: result.notification.take()!, source: source, line: line)
                }
                if schedule.notifications.isEmpty {
                    schedule.notifications = loaded
                } else {
                    schedule.notifications += loaded
                }
            }
            schedule.problems += problems
            schedule.reusable.generatorOutputs[generator.path] = GeneratorOutputRecord(
                fingerprint: fingerprint, problems: problems, notifications: start..<schedule.notifications.count,
                lineHashes: lineHashes)
            if let errors = outcome.quotedStandardError() {
                schedule.problems.append(
                    UnitFileDiagnostic(.warning, at: location, "Generator wrote to stderr: \(errors)."))
            }
        case .finished(let outcome):
            let what = "Generator " + outcome.explanation(timeout: timeout, outputLimit: outputLimit)
            schedule.problems.append(UnitFileDiagnostic(.error, at: location, failure(what, outcome)))
        case .failedToStart(let reason):
            schedule.problems.append(UnitFileDiagnostic(.error, at: location, "Failed to run generator: \(reason)."))
        }
    }

    /// `what` went wrong, what is therefore not used, and the end of stderr: one sentence.
    private func failure(_ what: String, _ outcome: CommandOutcome) -> String {
        var message = what
        // Every chunk but the last ends with a line break: no line is in two.
        let lines = outcome.output.chunks.reduce(0) { count, chunk in
            let lines = chunk.split(separator: UInt8(ascii: "\n"))
            return count + lines.filter { $0.contains { !" \t\r".utf8.contains($0) } }.count
        }
        if lines > 0 {
            message += "; ignoring the \(lines) line(s) it printed, as a generator that fails may have stopped halfway"
        }
        if let errors = outcome.quotedStandardError() { message += " (stderr: \(errors))" }
        return message + "."
    }
}
