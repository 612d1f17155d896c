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
