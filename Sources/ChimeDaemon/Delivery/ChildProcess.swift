import CChimeShims
import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// A started program: its pid (also its process group), a pidfd for its exit, and the parent's ends of its pipes
/// (-1 once closed).
struct ChildProcess {
    let pid: pid_t
    let pidDescriptor: Int32
    var input: Int32
    var output: Int32
    var standardError: Int32
    /// The wait(2) status, once reaped.
    private(set) var status: Int32?
    /// pidfds of the processes of the group still running after the program has exited.
    private(set) var stragglers: [Int32] = []
    /// How many bytes the stdout pipe holds (0 when stdout is not collected): what one read can take.
    let outputPipeSize: Int

    /// - Parameter outputPipeSize: `nil` to send stdout to `/dev/null`; else it goes to a pipe that holds at least
    ///   this many bytes if the system allows (the default 64 KiB otherwise).
    init(_ argv: [String], environment: [String: String], workingDirectory: String?, outputPipeSize: Int?) throws {
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
            var pipeSize = 0
            if let outputPipeSize {
                stdout = try pipeEnds()
                pipeSize = max(0, Int(chime_widen_pipe(stdout.read, Int32(clamping: outputPipeSize))))
            } else {
                let null = try SystemCall.retrying("open /dev/null") { open("/dev/null", O_WRONLY | O_CLOEXEC) }
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
            try SystemCallError.check(result, call: "execve")
            for end in [stdin.read, stdout.write, stderr.write] { Glibc.close(end) }
            opened = [stdin.write, stdout.read, stderr.read].filter { $0 >= 0 }
            for end in opened {
                let flags = try SystemCall.retrying("fcntl F_GETFL") { fcntl(end, F_GETFL) }
                try SystemCall.retrying("fcntl F_SETFL") { fcntl(end, F_SETFL, flags | O_NONBLOCK) }
            }
            let pidfd = chime_pidfd_open(spawned)
            if pidfd < 0 {
                kill(-spawned, SIGKILL)
                var ignored: Int32 = 0
                _ = SystemCall.retrying { waitpid(spawned, &ignored, 0) }
                try SystemCallError.check(pidfd, call: "pidfd_open")
            }
            pid = spawned
            pidDescriptor = pidfd
            input = stdin.write
            output = stdout.read
            standardError = stderr.read
            self.outputPipeSize = pipeSize
        } catch {
            for end in opened { Glibc.close(end) }
            throw CommandStartError.system(error)
        }
    }

    /// Collects the exit status; the pidfd said it has exited, so this does not wait.
    mutating func reap() {
        var value: Int32 = 0
        guard case .success = SystemCall.retrying({ waitpid(pid, &value, 0) }) else {
            // Reaped by somebody else (a SIGCHLD handler calling waitpid(-1)): the status is lost.
            status = 0x7f
            return
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

    mutating func closeOutputOnly() { Self.close(&output) }

    /// Hands the parent's end of stdin to the caller, who closes it: this no longer does.
    mutating func takeInput() -> Int32 {
        defer { input = -1 }
        return input
    }

    mutating func closeStandardErrorOnly() { Self.close(&standardError) }

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
