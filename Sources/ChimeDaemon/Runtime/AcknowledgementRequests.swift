import ChimeCore
import Foundation

/// `chimectl ack ID`: a request to stop the repeats of notification `ID`, left as the empty file
/// `STATE_DIR/acknowledge/ID` for chimed to take at its next rebuild (chimectl then asks for one). One file per id,
/// so that two requests at once cannot lose each other.
public struct AcknowledgementRequests: Sendable {
    public let directory: String

    public init(stateDirectory: String) {
        directory = stateDirectory + "/acknowledge"
    }

    /// Leaves a request for each of `ids` (valid notification ids).
    public func request(_ ids: [String]) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for id in ids where NotificationLoader.isValidID(id) {
            try AtomicFile.write("", to: directory + "/" + id)
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
