import ChimeCore
import ChimePlatform
import Foundation

/// `chimectl ack ID`: a request to stop the repeats of notification `ID`, left as the empty file
/// `STATE_DIR/acknowledge/ID` for chimed to take at its next rebuild (chimectl then asks for one). One file per id,
/// so that two requests at once cannot lose each other.
public struct AcknowledgementRequests: Sendable {
    public let directory: String
    private let stateDirectory: String

    public init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
        directory = stateDirectory + "/acknowledge"
    }

    /// Leaves a request for each of `ids` (valid notification ids).
    public func request(_ ids: [String]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try shareWithStateDirectoryOwner()
        for id in ids where NotificationLoader.isValidID(id) {
            try AtomicFile.write("", to: directory + "/" + id)
        }
    }

    /// Root asking the system instance (which runs as the user chime) makes the directory chimed's, as the state
    /// directory is: chimed takes a request by removing it, which needs the directory's write permission.
    private func shareWithStateDirectoryOwner() throws {
        var state = stat()
        var own = stat()
        guard geteuid() == 0, stat(stateDirectory, &state) == 0, stat(directory, &own) == 0,
            own.st_uid != state.st_uid || own.st_gid != state.st_gid
        else { return }
        guard chown(directory, state.st_uid, state.st_gid) == 0 else {
            throw SystemCallError(call: "chown \(directory)", errno: Errno(errno))
        }
    }

    /// The ids requested, removing the requests.
    public func take() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var ids = Set<String>()
        for name in names where NotificationLoader.isValidID(name) {
            if unlink(directory + "/" + name) == 0 { ids.insert(name) }
        }
        return ids
    }
}
