import ChimeCore
import ChimeDaemon
import Foundation

/// A failure a command reports on standard error with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
