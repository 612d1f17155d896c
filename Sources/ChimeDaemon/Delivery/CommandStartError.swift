import ChimePlatform

/// Why `CommandRunner` could not start a program.
public enum CommandStartError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyCommandLine
    /// argv[0] is not an absolute path: there is no `PATH` search.
    case relativePath(String)
    /// An argument or environment variable holds a NUL byte, which cannot be passed to a program.
    case nulByte(String)
    /// A system call failed; `execve` carries the error of the child's start (ENOENT, EACCES, ENOEXEC, ETXTBSY from
    /// the exec).
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
