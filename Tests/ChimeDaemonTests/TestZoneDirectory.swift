import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation

/// A zone database of a test's own under `zoneinfo/`, whose `Test/Zone` can be made a copy of any installed zone:
/// what a tzdata update does to a zone that notifications name.
extension TemporaryDirectory {
    var testZones: ZoneDatabase { ZoneDatabase(directory: path + "/zoneinfo") }

    /// Makes `Test/Zone` a copy of the installed zone `name`.
    func setTestZone(_ name: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name))
        let folder = path + "/zoneinfo/Test"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: folder + "/Zone"))
    }
}
