import ChimeCore
import Foundation
import Glibc

/// How one run of a generator went.
enum GeneratorRun: Sendable {
    case finished(CommandOutcome)
    /// Could not be started; the system's reason.
    case failedToStart(String)
}

/// Runs one generator with `CommandRunner`: the executable itself (argv is just its path, no shell), stdin empty,
/// stdout collected up to the output limit, in a process group of its own that is killed at the timeout or on too
/// much output, so that whatever it started ends with it.
///
/// As for every program `CommandRunner` runs, a generator has finished when it has exited, closed its output, and
/// left nothing running in its process group. So one that leaves a process running in the background runs into the
/// timeout, and that process is killed with it.
struct GeneratorRunner: Sendable {
    var timeout: Duration
    /// The most stdout bytes accepted; a generator printing more is killed.
    var outputLimit: Int

    func run(_ path: String, environment: [String: String], workingDirectory: String) -> GeneratorRun {
        do {
            return .finished(
                try CommandRunner.runToEnd(
                    [path], environment: environment, input: [], timeout: timeout, workingDirectory: workingDirectory,
                    outputLimit: outputLimit))
        } catch {
            return .failedToStart(Self.startFailure(error))
        }
    }

    /// Why the start failed, with a hint for the two usual mistakes with scripts.
    private static func startFailure(_ error: any Error) -> String {
        guard let code = errno(of: error) else { return "\(error)" }
        let reason = String(cString: strerror(code))
        switch code {
        case ENOEXEC: return "\(reason) (does it start with a #! line?)"
        case ENOENT: return "\(reason) (is the interpreter named in its #! line installed?)"
        default: return reason
        }
    }

    private static func errno(of error: any Error) -> Int32? {
        guard case .system(let failure) = error as? CommandStartError else { return nil }
        return failure.errno.rawValue
    }

    /// The system's wording for a failed Foundation file operation ("Permission denied"), which Foundation keeps in
    /// the underlying POSIX error.
    static func reason(_ error: any Error) -> String {
        let outer = error as NSError
        var code: Int?
        if outer.domain == NSPOSIXErrorDomain {
            code = outer.code
        } else if let underlying = outer.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            code = underlying.code
        }
        guard let code else { return outer.localizedDescription }
        return String(cString: strerror(Int32(code)))
    }
}
