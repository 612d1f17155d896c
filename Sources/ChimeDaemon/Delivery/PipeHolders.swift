import Foundation
import Glibc

/// The processes that hold a pipe open, found in /proc: for a program's output still open after the program and
/// its process group ended, held by a process that left the group (`setsid`) and would keep the run going.
enum PipeHolders {
    /// The processes, other than chimed and its children, with a descriptor on the pipe of `descriptors` (either
    /// end). A child of chimed's own is a program being started beside this one, which holds a copy of chimed's
    /// descriptors until its exec closes them; what left a finished program's group was its child, not chimed's.
    static func processes(holding descriptors: [Int32]) -> [pid_t] {
        var pipes = Set<String>()
        for descriptor in descriptors where descriptor >= 0 {
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFIFO {
                pipes.insert("pipe:[\(status.st_ino)]")
            }
        }
        guard !pipes.isEmpty else { return [] }
        let own = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != own, parent(of: pid) != own else { return nil }
            let directory = "/proc/\(entry)/fd"
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            let holds = descriptors.contains { name in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name))
                    .map(pipes.contains) ?? false
            }
            return holds ? pid : nil
        }
    }

    /// The parent of `pid` (the fourth field of `/proc/PID/stat`), or `nil` once it is gone.
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
