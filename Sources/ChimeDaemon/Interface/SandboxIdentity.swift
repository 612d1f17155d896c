import ChimeCore
import ChimePlatform
import Foundation
import Glibc

/// The application id a sandboxed process runs as: Flatpak puts `/.flatpak-info` (a key file whose `[Application]`
/// `name=` is the app's id) at the root of every sandbox, where the app cannot change it, and chimed reads it
/// through the caller's root (`/proc/PID/root`), as the desktop portals do.
enum SandboxIdentity {
    /// The caller is not sandboxed (`nil`), or sandboxed as the returned app id.
    /// - Throws: `SandboxIdentityError` when it cannot be told: the process is gone, its root cannot be read, or
    ///   the file names no application.
    static func appID(ofProcess pid: pid_t, proc: String = "/proc") throws -> String? {
        let path = "\(proc)/\(pid)/root/.flatpak-info"
        let descriptor: Int32
        switch SystemCall.retrying({ open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            // The process's own root exists (else it is gone): no file there is no sandbox.
            if error == .noSuchFile, access("\(proc)/\(pid)/root/", F_OK) == 0 { return nil }
            throw SandboxIdentityError(pid: pid, reason: "cannot read \(path): \(error)")
        }
        let data = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readData(ofLength: 64 << 10)
        return try appID(inFlatpakInfo: data, pid: pid)
    }

    /// `[Application] name=` of a `.flatpak-info`.
    static func appID(inFlatpakInfo data: Data, pid: pid_t) throws -> String {
        let info = UnitFile(parsing: data, path: ".flatpak-info")
        guard let name = info.lastValue(for: "name", in: "Application")?.value, !name.isEmpty else {
            throw SandboxIdentityError(pid: pid, reason: "its .flatpak-info names no application")
        }
        return name
    }
}

struct SandboxIdentityError: Error, CustomStringConvertible {
    var pid: pid_t
    var reason: String

    var description: String { "cannot tell whether process \(pid) is sandboxed: \(reason)" }
}
