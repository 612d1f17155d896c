import CChimeShims
import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// Runs a program the way chimed runs every program it does not own: delivery commands (`[Command]`), the
/// commands of `ExecAction=`, and generators.
///
/// - The argv is used as given: no shell, no `PATH` search (argv[0] is an absolute path), nothing expanded. What a
///   notification says reaches the program as data (environment, stdin), never as syntax.
/// - The program leads a new process group, with every signal at its default disposition and no descriptor but
///   stdin, stdout and stderr. A start that fails with ETXTBSY is tried again a few times (`busyRetries`, 150 ms in
///   all).
/// - The program dies with chimed: the kernel kills it (its parent-death signal, SIGKILL) when the thread that waits
///   for it ends, which happens while it runs only when chimed ends (killed, crashed), so a delivery command does
///   not finish after chimed's end, to be run again at its restart.
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
    ///   `CHIME_SNOOZED=1` when it comes back after a snooze, `CHIME_INTERRUPTION_LEVEL` when it is not `active`,
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
        let child = try start(
            argv, environment: environment, workingDirectory: workingDirectory,
            outputPipeSize: outputLimit.map { min($0, widestOutputPipe) }, until: deadline)
        var supervision = CommandSupervision(
            child, input: input, outputLimit: outputLimit, deadline: deadline, cancellation: cancellation)
        return try supervision.run()
    }

    /// The largest stdout pipe asked for, for a program allowed to print more than the default 64 KiB. A program
    /// printing megabytes (a generator) fills the pipe and waits for each read, and each such round of wake-ups
    /// costs more than copying the bytes: 140 MB through a pipe of 1 MiB takes a sixteenth of the rounds and a
    /// third of the time (bench/scale.md).
    static let widestOutputPipe = 1 << 20

    /// How often a start that fails with ETXTBSY is tried again, a few milliseconds more apart each time.
    static let busyRetries = 5

    /// Starts the program, trying again for a moment while it is "text file busy": open for writing somewhere.
    /// Often only for a moment: an editor saving it, or a fork in another thread of this process (another run's
    /// start, Foundation's Process) that has not yet reached exec and closed the descriptors it inherited.
    private static func start(
        _ argv: [String], environment: [String: String], workingDirectory: String?, outputPipeSize: Int?,
        until deadline: ContinuousClock.Instant
    ) throws -> ChildProcess {
        var attempt = 0
        while true {
            do {
                return try ChildProcess(
                    argv, environment: environment, workingDirectory: workingDirectory, outputPipeSize: outputPipeSize)
            } catch CommandStartError.system(let failure)
                where failure.errno == .textFileBusy && attempt < busyRetries && ContinuousClock.now < deadline
            {
                attempt += 1
                usleep(UInt32(attempt) * 10_000)
            }
        }
    }

    /// `duration` in whole milliseconds, rounded up so that poll(2) does not wake just before the deadline.
    static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        return Int32(clamping: duration.millisecondsRoundedUp)
    }
}
