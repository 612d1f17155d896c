import ChimeCore
import Foundation

/// The zone files of a tzdata directory, read from disk: the `ZoneSource` of the daemon and chimectl.
public struct TZDataSource: ZoneSource {
    public let directory: String

    public init(directory: String = "/usr/share/zoneinfo") {
        self.directory = directory
    }

    public func isZoneFile(_ name: String) -> Bool {
        let path = directory + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic.elementsEqual("TZif".utf8)
    }

    public func contents(of name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory + "/" + name).map(Array.init)
    }

    /// The files under the directory, without the `posix/` and `right/` copies of the whole database: listed once
    /// per directory and process, since a suggestion is asked for at every misspelt zone (a fuzzer asks thousands of
    /// times), and a zone added meanwhile only goes unsuggested.
    public func zoneNames() -> [String] {
        if let known = Self.listed.withLock({ $0[directory] }) { return known }
        let names = listZoneNames()
        Self.listed.withLock { $0[directory] = names }
        return names
    }

    private static let listed = Locked<[String: [String]]>([:])

    private func listZoneNames() -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: directory) else { return [] }
        var names: [String] = []
        while let name = walk.nextObject() as? String {
            if name == "posix" || name == "right" {
                walk.skipDescendants()
            } else if walk.fileAttributes?[.type] as? FileAttributeType == .typeRegular, !name.contains(".") {
                names.append(name)
            }
        }
        return names.sorted()
    }
}

extension ZoneDatabase {
    /// The system's tzdata, `/usr/share/zoneinfo`.
    public static let system = ZoneDatabase(source: TZDataSource())

    /// The tzdata in `directory`.
    public init(directory: String) {
        self.init(source: TZDataSource(directory: directory))
    }
}
