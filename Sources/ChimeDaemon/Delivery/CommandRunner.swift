import CChimeShims
import ChimeCore
import Foundation
import Glibc

/// How a program run by `CommandRunner` ended, and what it wrote.
public struct CommandOutcome: Sendable, Equatable {
    public enum Ending: Sendable, Equatable {
        case exited(status: Int32)
        case killedBySignal(Int32)
        /// Still running at the timeout (itself, or what it started in its group, or its output held open): its
        /// process group was killed.
        case timedOut
        /// Wrote more than the output limit to stdout: its process group was killed.
        case printedTooMuch
        /// The task waiting for it was cancelled: its process group was killed.
        case cancelled
    }

    public var ending: Ending
    /// What it wrote to stdout, when the run collected it (`outputLimit`); otherwise empty.
    public var output: [UInt8] = []
    /// The last `CommandRunner.standardErrorTailLimit` bytes it wrote to stderr.
    public var standardErrorTail: [UInt8] = []

    /// How it ended, as the second half of a sentence whose subject is the program ("exited with status 3").
    public func explanation(timeout: Duration, outputLimit: Int? = nil) -> String {
        switch ending {
        case .exited(let status):
            return "exited with status \(status)"
        case .killedBySignal(let signal):
            return "was killed by signal \(signal) (\(String(cString: strsignal(signal))))"
        case .timedOut:
            return "did not finish within \(Timespan(timeout) ?? .infinity); killed it and everything it started"
        case .printedTooMuch:
            return "printed more than \(outputLimit ?? 0) bytes; killed it and everything it started"
        case .cancelled:
            return "was still running when chimed gave up on it; killed it and everything it started"
        }
    }

    /// The last `lines` non-blank lines of stderr (at most `characters` characters, control characters removed)
    /// in quotes, joined by " / ", or `nil` if it wrote nothing to show.
    public func quotedStandardError(lines: Int = 3, characters: Int = 300) -> String? {
        let text = String(decoding: standardErrorTail, as: UTF8.self)
        let shown = text.split(whereSeparator: \.isNewline).map {
            String($0.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
                .trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        guard !shown.isEmpty else { return nil }
        var joined = shown.suffix(lines).joined(separator: " / ")
        if joined.count > characters { joined = "…" + joined.suffix(characters - 1) }
        return "\"\(joined)\""
    }
}

/// Why `CommandRunner` could not start a program.
public enum CommandStartError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyCommandLine
    /// argv[0] is not an absolute path: there is no `PATH` search.
    case relativePath(String)
    /// An argument or environment variable holds a NUL byte, which cannot be passed to a program.
    case nulByte(String)
    /// A system call failed; `posix_spawn` carries the error of the exec (ENOENT, EACCES, ENOEXEC, ETXTBSY).
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .emptyCommandLine: return "empty command line"
        case .relativePath(let path): return "'\(path)' is not an absolute path"
        case .nulByte(let what): return "\(what) contains a NUL byte"
        case .system(let error): return "\(error)"
        }
    }
}

/// Runs a program the way chimed runs every program it does not own: delivery commands (`[Command]`), the
/// commands of `ExecAction=`, and generators.
///
/// - The argv is used as given: no shell, no `PATH` search (argv[0] is an absolute path), nothing expanded. What a
///   notification says reaches the program as data (environment, stdin), never as syntax.
/// - The program leads a new process group (posix_spawn with `POSIX_SPAWN_SETPGROUP`), with every signal at its
///   default disposition and no descriptor but stdin, stdout and stderr. A start that fails with ETXTBSY is tried
///   again a few times (`busyRetries`, 150 ms in all).
/// - `input` is written to its stdin, which is then closed. stdout is collected up to `outputLimit` (a program
///   printing more is killed) or, without a limit, goes to /dev/null. Of stderr the last
///   `standardErrorTailLimit` bytes are kept, so memory stays bounded however much it writes.
/// - A run has finished when the program has exited, its stdout and stderr are closed, and no process it started
///   is left in its process group. One it leaves running in the background keeps the run going, into the timeout,
///   whether or not it holds the output open.
/// - At the timeout (or on cancellation) the whole process group gets SIGTERM and, `killGrace` later, SIGKILL:
///   children, and their children that stayed in the group, end with it.
public enum CommandRunner {
    public static let standardErrorTailLimit = 2048
    /// Between SIGTERM and SIGKILL to the process group of a program being stopped.
    public static let killGrace: Duration = .seconds(2)
    /// The `PATH` a program gets when chimed has none.
    public static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// Set by systemd for the service's main process; a program chimed starts must not notify or take sockets in
    /// its name.
    static let serviceManagerVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES",
    ]

    /// Runs `argv` to its end (see `CommandRunner`) and says how it ended.
    ///
    /// The waiting is done by a thread of its own, blocked in poll(2) on the process's pidfd, its pipes, a
    /// cancellation pipe and, once the program has exited, the pidfds of what it left in its group: the proper
    /// events, with no polling loop, and without holding one of the few threads of Swift's cooperative pool for as
    /// long as the program runs (up to its timeout). Cancelling the calling task stops the program as a timeout
    /// would, and the run ends `.cancelled`.
    ///
    /// - Throws: `CommandStartError` when the program could not be started.
    public static func run(
        _ argv: [String], environment: [String: String], input: Data = Data(), timeout: Duration,
        workingDirectory: String? = nil, outputLimit: Int? = nil
    ) async throws -> CommandOutcome {
        let cancellation = try CancellationPipe()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        with: Result {
                            try runToEnd(
                                argv, environment: environment, input: [UInt8](input), timeout: timeout,
                                workingDirectory: workingDirectory, outputLimit: outputLimit,
                                cancellation: cancellation)
                        })
                }
                thread.name = "chime-command"
                thread.start()
            }
        } onCancel: {
            cancellation.fire()
        }
    }

    /// The environment of a program run for `delivery` (a `[Command]` backend, an `ExecAction=`): `base` without
    /// its `CHIME_*` variables, plus the fields of the delivery's journal entry (`Dispatcher.fields`):
    ///
    /// - `CHIME_ID`, `CHIME_TITLE`, `CHIME_BODY` (here also when empty), `CHIME_BACKEND` (`backend`),
    ///   `CHIME_FIRE_TIME` (ISO 8601 UTC with microseconds),
    /// - `CHIME_INFO_KEY=VALUE` for each `Info=KEY=VALUE`, the key in capitals,
    /// - `CHIME_BADGE` when the delivery sets a badge number, `CHIME_MISSED` when it stands for missed occurrences,
    ///   `CHIME_SNOOZED=1` when it comes back after a snooze,
    ///
    /// and what `programEnvironment(base:)` adds.
    public static func environment(for delivery: Delivery, backend: String, base: [String: String]) -> [String: String]
    {
        var result = programEnvironment(base: base.filter { !$0.key.hasPrefix("CHIME_") })
        for field in Dispatcher.fields(of: delivery, backend: backend) { result[field.name] = field.value }
        result["CHIME_BODY"] = delivery.notification.body
        return result
    }

    /// `base` without the service manager's variables meant for chimed alone (`NOTIFY_SOCKET`, `WATCHDOG_*`,
    /// `LISTEN_*`), with `PATH` and `LANG` (`C.UTF-8`) when it has none.
    public static func programEnvironment(base: [String: String]) -> [String: String] {
        var result = base.filter { !serviceManagerVariables.contains($0.key) }
        if result["PATH"] == nil { result["PATH"] = defaultPath }
        if result["LANG"] == nil { result["LANG"] = "C.UTF-8" }
        return result
    }

    /// Runs `argv` to its end on the calling thread, which it blocks: for callers that have a thread to spare
    /// (generators run on `ParallelWork`'s), and for `run`.
    static func runToEnd(
        _ argv: [String], environment: [String: String], input: [UInt8], timeout: Duration,
        workingDirectory: String?, outputLimit: Int?, cancellation: CancellationPipe? = nil
    ) throws -> CommandOutcome {
        let deadline = ContinuousClock.now + timeout
        var child = try start(
            argv, environment: environment, workingDirectory: workingDirectory, collectsOutput: outputLimit != nil,
            until: deadline)
        defer { child.closeAll() }
        if input.isEmpty { child.closeInput() }
        var outcome = CommandOutcome(ending: .exited(status: 0))
        var written = 0
        // Set once the group has been told to stop: when SIGKILL follows.
        var killAt: ContinuousClock.Instant?
        var buffer = [UInt8](repeating: 0, count: 65536)

        func stop(_ ending: CommandOutcome.Ending) {
            guard killAt == nil else { return }
            outcome.ending = ending
            child.closeInput()
            child.signalGroup(SIGTERM)
            killAt = ContinuousClock.now + killGrace
        }

        while true {
            if child.status != nil, child.output < 0, child.standardError < 0 {
                // Being stopped, whatever is left of the group gets SIGKILL below.
                if killAt != nil { break }
                if child.stragglers.isEmpty && !child.watchStragglers() { break }
            }
            let now = ContinuousClock.now
            if let killAt, now >= killAt {
                child.signalGroup(SIGKILL)
                // A process outside the group (one that called setsid) may hold the pipes forever: from here on
                // only the exit counts.
                child.closeOutput()
                child.awaitExit()
                break
            }
            if killAt == nil, now >= deadline { stop(.timedOut) }
            var descriptors = [
                pollfd(fd: child.status == nil ? child.pidDescriptor : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: child.input, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: child.output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: child.standardError, events: Int16(POLLIN), revents: 0),
                pollfd(fd: cancellation?.readEnd ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            descriptors += child.stragglers.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds((killAt ?? deadline) - now))
            if ready < 0 {
                guard errno == EINTR else {
                    let failure = SystemCallError(call: "poll", errno: errno)
                    child.signalGroup(SIGKILL)
                    child.awaitExit()
                    throw CommandStartError.system(failure)
                }
                continue
            }
            if descriptors[0].revents != 0 { child.reap() }
            if descriptors[1].revents != 0 {
                let count = input[written...].withUnsafeBytes {
                    chime_write_without_sigpipe(child.input, $0.baseAddress, UInt($0.count))
                }
                if count > 0 { written += count }
                // All written, or nobody reads (EPIPE) any more: either way stdin is done.
                if written == input.count || (count < 0 && -count != Int(EAGAIN) && -count != Int(EINTR)) {
                    child.closeInput()
                }
            }
            // Once it is being stopped, what it still prints is drained but not kept: memory stays bounded.
            if descriptors[2].revents != 0, let chunk = read(&child.output, into: &buffer), killAt == nil {
                outcome.output += chunk
                if outcome.output.count > outputLimit ?? .max { stop(.printedTooMuch) }
            }
            if descriptors[3].revents != 0, let chunk = read(&child.standardError, into: &buffer) {
                outcome.standardErrorTail += chunk
                if outcome.standardErrorTail.count > 2 * standardErrorTailLimit {
                    outcome.standardErrorTail.removeFirst(outcome.standardErrorTail.count - standardErrorTailLimit)
                }
            }
            if descriptors[4].revents != 0 { stop(.cancelled) }
            // One has ended: look again, for it may have started others.
            if descriptors[5...].contains(where: { $0.revents != 0 }) { child.closeStragglers() }
        }
        outcome.standardErrorTail = Array(outcome.standardErrorTail.suffix(standardErrorTailLimit))
        if killAt != nil {
            // Whatever of the group ignored SIGTERM but closed its output is not left behind either.
            child.signalGroup(SIGKILL)
        } else if let status = child.status {
            // wait(2) status: the low 7 bits are the terminating signal, or 0 and the exit status above them.
            outcome.ending = status & 0x7f == 0 ? .exited(status: (status >> 8) & 0xff) : .killedBySignal(status & 0x7f)
        }
        return outcome
    }

    /// How often a start that fails with ETXTBSY is tried again, a few milliseconds more apart each time.
    static let busyRetries = 5

    /// Starts the program, trying again for a moment while it is "text file busy": open for writing somewhere.
    /// Often only for a moment: an editor saving it, or a fork in another thread of this process (another run's
    /// posix_spawn, Foundation's Process) that has not yet reached exec and closed the descriptors it inherited.
    private static func start(
        _ argv: [String], environment: [String: String], workingDirectory: String?, collectsOutput: Bool,
        until deadline: ContinuousClock.Instant
    ) throws -> ChildProcess {
        var attempt = 0
        while true {
            do {
                return try ChildProcess(
                    argv, environment: environment, workingDirectory: workingDirectory, collectsOutput: collectsOutput)
            } catch CommandStartError.system(let failure)
                where failure.errno == ETXTBSY && attempt < busyRetries && ContinuousClock.now < deadline
            {
                attempt += 1
                usleep(UInt32(attempt) * 10_000)
            }
        }
    }

    /// Reads what is there from `descriptor`; closes it (-1) at end of file or on an error.
    private static func read(_ descriptor: inout Int32, into buffer: inout [UInt8]) -> ArraySlice<UInt8>? {
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return nil }
        guard count > 0 else {
            close(descriptor)
            descriptor = -1
            return nil
        }
        return buffer[..<count]
    }

    /// `duration` in whole milliseconds, rounded up so that poll(2) does not wake just before the deadline.
    static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        return Int32(clamping: duration.millisecondsRoundedUp)
    }
}

/// A pipe whose read end becomes readable when `fire()` is called: how a task's cancellation reaches the thread
/// that waits in poll(2).
final class CancellationPipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        do {
            try SystemCallError.check(chime_pipe(&ends, 1), call: "pipe2")
        } catch {
            throw CommandStartError.system(error)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func fire() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }
}

/// A started program: its pid (also its process group), a pidfd for its exit, and the parent's ends of its pipes
/// (-1 once closed).
private struct ChildProcess {
    let pid: pid_t
    let pidDescriptor: Int32
    var input: Int32
    var output: Int32
    var standardError: Int32
    /// The wait(2) status, once reaped.
    private(set) var status: Int32?
    /// pidfds of the processes of the group still running after the program has exited.
    private(set) var stragglers: [Int32] = []

    init(_ argv: [String], environment: [String: String], workingDirectory: String?, collectsOutput: Bool) throws {
        guard let path = argv.first else { throw CommandStartError.emptyCommandLine }
        guard path.hasPrefix("/") else { throw CommandStartError.relativePath(path) }
        if let bad = argv.first(where: { $0.utf8.contains(0) }) { throw CommandStartError.nulByte("argument '\(bad)'") }
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if let bad = environment.first(where: { $0.key.utf8.contains(0) || $0.value.utf8.contains(0) }) {
            throw CommandStartError.nulByte("environment variable \(bad.key)")
        }
        // The parent's ends are close-on-exec (no other child inherits them) and non-blocking (poll decides).
        var opened: [Int32] = []
        func pipeEnds() throws(SystemCallError) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            try SystemCallError.check(chime_pipe(&ends, 0), call: "pipe2")
            opened += ends
            return (ends[0], ends[1])
        }
        do {
            let stdin = try pipeEnds()
            let stdout: (read: Int32, write: Int32)
            if collectsOutput {
                stdout = try pipeEnds()
            } else {
                let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                guard null >= 0 else { throw SystemCallError(call: "open", errno: errno) }
                opened.append(null)
                stdout = (-1, null)
            }
            let stderr = try pipeEnds()
            var spawned: pid_t = 0
            let result = withCStrings(argv) { argvPointers in
                withCStrings(variables) { environmentPointers in
                    chime_spawn(
                        path, argvPointers, environmentPointers, workingDirectory, stdin.read, stdout.write,
                        stderr.write, &spawned)
                }
            }
            try SystemCallError.check(result, call: "posix_spawn")
            for end in [stdin.read, stdout.write, stderr.write] { Glibc.close(end) }
            opened = [stdin.write, stdout.read, stderr.read].filter { $0 >= 0 }
            for end in opened { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
            let pidfd = chime_pidfd_open(spawned)
            if pidfd < 0 {
                kill(-spawned, SIGKILL)
                var ignored: Int32 = 0
                _ = waitpid(spawned, &ignored, 0)
                try SystemCallError.check(pidfd, call: "pidfd_open")
            }
            pid = spawned
            pidDescriptor = pidfd
            input = stdin.write
            output = stdout.read
            standardError = stderr.read
        } catch let error as SystemCallError {
            for end in opened { Glibc.close(end) }
            throw CommandStartError.system(error)
        } catch {
            for end in opened { Glibc.close(end) }
            throw error
        }
    }

    /// Collects the exit status; the pidfd said it has exited, so this does not wait.
    mutating func reap() {
        var value: Int32 = 0
        while waitpid(pid, &value, 0) < 0 {
            guard errno == EINTR else {
                // Reaped by somebody else (a SIGCHLD handler calling waitpid(-1)): the status is lost.
                status = 0x7f
                return
            }
        }
        status = value
    }

    /// Waits for the exit: after SIGKILL to the group it comes at once.
    mutating func awaitExit() {
        if status == nil { reap() }
    }

    /// Whether processes other than the program are left in its group; if so, opens pidfds to wait for them.
    ///
    /// There is no event for a process group becoming empty, and they are not chimed's children, so they are found
    /// in /proc (the fifth field of `/proc/PID/stat` is the process group); zombies waiting for whoever adopted
    /// them have ended. Only done after the program has exited, and again each time one of them ends.
    mutating func watchStragglers() -> Bool {
        closeStragglers()
        // The usual case, an empty group, costs one system call rather than a walk through /proc.
        if kill(-pid, 0) == -1 && errno == ESRCH { return false }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let member = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After the command name in parentheses: state, parent, process group.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 2, fields[2] == "\(pid)", fields[0] != "Z", fields[0] != "X" else { continue }
            let descriptor = chime_pidfd_open(member)
            if descriptor >= 0 { stragglers.append(descriptor) }
        }
        return !stragglers.isEmpty
    }

    mutating func closeStragglers() {
        for descriptor in stragglers { Glibc.close(descriptor) }
        stragglers = []
    }

    /// Sends `signal` to every process of the group (none left: ESRCH, nothing to do), and to the program itself
    /// while it has not been reaped, in case it left the group (setsid).
    func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
        if status == nil { kill(pid, signal) }
    }

    mutating func closeInput() { Self.close(&input) }

    mutating func closeOutput() {
        Self.close(&output)
        Self.close(&standardError)
    }

    mutating func closeAll() {
        closeStragglers()
        closeInput()
        closeOutput()
        Glibc.close(pidDescriptor)
    }

    private static func close(_ descriptor: inout Int32) {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// Calls `body` with a NULL-terminated array of C strings, as `execve` takes argv and envp.
private func withCStrings<Result>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
