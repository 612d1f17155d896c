import ChimeCore
import Foundation

/// The seeds of randomized delays (`DelaySeeds`): the host's from its machine id (machine-id(5)), the same at every
/// start, and a run's, new at each.
enum MachineSeed {
    /// - Parameter machineIDPath: `/etc/machine-id`. A host without one (an image not yet booted) gets the seed of
    ///   its host name: stable still, only not unique to it.
    static func delaySeeds(machineIDPath: String = "/etc/machine-id") -> DelaySeeds {
        let machineID =
            (try? String(contentsOfFile: machineIDPath, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.hostName
        return DelaySeeds(host: DelaySeeds.host(machineID: machineID), run: UInt64.random(in: .min ... .max))
    }
}
