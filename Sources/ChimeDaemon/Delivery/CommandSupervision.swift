import CChimeShims
import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// One started program watched to the end of its run (see `CommandRunner`): waits in poll(2) on its pidfd, its
/// pipes, the cancellation pipe and, once it has exited, the pidfds of what it left in its group, and handles each
/// event as it comes — stdin writable, output, stderr, the exit, a timeout or a cancellation that stops the group.
struct CommandSupervision {
    private var child: ChildProcess
    private let input: [UInt8]
    private let outputLimit: Int?
    private let deadline: ContinuousClock.Instant
    private let cancellation: CancellationPipe?
    private var outcome = CommandOutcome(ending: .exited(status: 0))
    /// How much of `input` has been written.
    private var written = 0
    /// Set once the group has been told to stop: when SIGKILL follows.
    private var killAt: ContinuousClock.Instant?
    /// What one read(2) takes: as much as the output pipe holds, so that a read empties it.
    private var buffer: [UInt8]
    /// Set once what held the program's pipes after it and its group ended has been killed.
    private var escapeesStopped = false

    init(
        _ child: ChildProcess, input: [UInt8], outputLimit: Int?, deadline: ContinuousClock.Instant,
        cancellation: CancellationPipe?
    ) {
        self.child = child
        self.input = input
        self.outputLimit = outputLimit
        self.deadline = deadline
        self.cancellation = cancellation
        buffer = [UInt8](repeating: 0, count: max(65536, child.outputPipeSize))
        if input.isEmpty { self.child.closeInput() }
    }

    /// Watches the run to its end and says how it ended; every descriptor is closed after.
    mutating func run() throws -> CommandOutcome {
        defer { child.closeAll() }
        while try step() {}
        outcome.standardErrorTail = Array(outcome.standardErrorTail.suffix(CommandRunner.standardErrorTailLimit))
        if killAt != nil {
            // Whatever of the group ignored SIGTERM but closed its output is not left behind either.
            child.signalGroup(SIGKILL)
        } else if let status = child.status {
            // wait(2) status: the low 7 bits are the terminating signal, or 0 and the exit status above them.
            outcome.ending = status & 0x7f == 0 ? .exited(status: (status >> 8) & 0xff) : .killedBySignal(status & 0x7f)
        }
        return outcome
    }

    /// Stops the group: SIGTERM now, SIGKILL `CommandRunner.killGrace` later; the run ends `ending`.
    private mutating func stop(_ ending: CommandOutcome.Ending) {
        guard killAt == nil else { return }
        outcome.ending = ending
        child.closeInput()
        child.signalGroup(SIGTERM)
        killAt = ContinuousClock.now + CommandRunner.killGrace
    }

    /// Whether the output and standard error are quiet and still open: nothing to read and no end of file. After the
    /// program exited, a pipe that is neither is held by another process. One poll(2), so that the usual end (data
    /// or end of file still to read) costs no walk through /proc.
    private func isOutputHeld() -> Bool {
        var descriptors = [
            pollfd(fd: child.output, events: Int16(POLLIN), revents: 0),
            pollfd(fd: child.standardError, events: Int16(POLLIN), revents: 0),
        ]
        guard case .success = SystemCall.retrying({ poll(&descriptors, 2, 0) }) else { return false }
        return descriptors.allSatisfy { $0.revents == 0 }
    }

    /// Kills the processes outside the group that hold the program's output or standard error.
    private mutating func stopEscapees() {
        escapeesStopped = true
        for pid in PipeHolders.processes(holding: [child.output, child.standardError]) { kill(pid, SIGKILL) }
    }

    /// Waits for what happens next and handles it; `false` once the run is over.
    private mutating func step() throws -> Bool {
        if child.status != nil, child.output < 0, child.standardError < 0 {
            // Being stopped, whatever is left of the group gets SIGKILL in `run`.
            if killAt != nil { return false }
            if child.stragglers.isEmpty && !child.watchStragglers() { return false }
        }
        if child.status != nil, !escapeesStopped, child.output >= 0 || child.standardError >= 0, isOutputHeld(),
            child.stragglers.isEmpty, !child.watchStragglers()
        {
            // The program exited and left nothing in its group, yet its output is open: held by a process that
            // left the group (setsid). It goes with the program, rather than keep the run going to the timeout.
            stopEscapees()
        }
        let now = ContinuousClock.now
        if let killAt, now >= killAt {
            child.signalGroup(SIGKILL)
            stopEscapees()
            // A process outside the group (one that called setsid) may hold the pipes forever: from here on only
            // the exit counts.
            child.closeOutput()
            child.awaitExit()
            return false
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
        let timeout = CommandRunner.milliseconds((killAt ?? deadline) - now)
        if case .failure(let failure) = SystemCall.retrying({
            poll(&descriptors, nfds_t(descriptors.count), timeout)
        }) {
            child.signalGroup(SIGKILL)
            child.awaitExit()
            throw CommandStartError.system(SystemCallError(call: "poll", errno: failure))
        }
        if descriptors[0].revents != 0 { child.reap() }
        if descriptors[1].revents != 0 { writeInput() }
        // Once it is being stopped, what it still prints is drained but not kept: memory stays bounded.
        if descriptors[2].revents != 0, let chunk = Self.read(&child.output, into: &buffer), killAt == nil {
            outcome.output.append(contentsOf: chunk)
            if outcome.output.count > outputLimit ?? .max { stop(.printedTooMuch) }
        }
        if descriptors[3].revents != 0, let chunk = Self.read(&child.standardError, into: &buffer) {
            outcome.standardErrorTail += chunk
            let limit = CommandRunner.standardErrorTailLimit
            if outcome.standardErrorTail.count > 2 * limit {
                outcome.standardErrorTail.removeFirst(outcome.standardErrorTail.count - limit)
            }
        }
        if descriptors[4].revents != 0 { stop(.cancelled) }
        // One has ended: look again, for it may have started others.
        if descriptors[5...].contains(where: { $0.revents != 0 }) { child.closeStragglers() }
        return true
    }

    /// Writes what stdin takes now; closes it once all is written, or when nobody reads it any more (EPIPE).
    private mutating func writeInput() {
        let count = input[written...].withUnsafeBytes {
            chime_write_without_sigpipe(child.input, $0.baseAddress, UInt($0.count))
        }
        if count > 0 { written += count }
        let failure = count < 0 ? Errno(Int32(-count)) : nil
        if written == input.count || (failure != nil && failure != .wouldBlock && failure != .interrupted) {
            child.closeInput()
        }
    }

    /// Reads what is there from `descriptor`; closes it (-1) at end of file or on an error.
    private static func read(_ descriptor: inout Int32, into buffer: inout [UInt8]) -> ArraySlice<UInt8>? {
        switch SystemCall.retrying({ Glibc.read(descriptor, &buffer, buffer.count) }) {
        case .success(let count) where count > 0:
            return buffer[..<count]
        case .failure(.wouldBlock):
            return nil
        default:
            close(descriptor)
            descriptor = -1
            return nil
        }
    }
}
