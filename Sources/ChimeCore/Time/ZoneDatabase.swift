import Foundation

/// The installed time zones (a tzdata directory such as `/usr/share/zoneinfo`), looked up by IANA name.
///
/// A database reads each zone file once and remembers the answer (copies share what they remember); make a new
/// one to see tzdata that changed since.
public struct ZoneDatabase: Sendable {
    public let directory: String
    private let cache = Cache()

    /// The system's tzdata.
    public static let system = ZoneDatabase()

    public init(directory: String = "/usr/share/zoneinfo") {
        self.directory = directory
    }

    /// What has been read so far, by zone name; forgotten when it grows beyond a few thousand names (only names
    /// that do not exist can be that many).
    private final class Cache: @unchecked Sendable {
        static let limit = 4_096
        private let lock = NSLock()
        private var validity: [String: Bool] = [:]
        private var rules: [String: Result<ZoneRules, ZoneError>] = [:]

        func validity(of name: String, _ compute: () -> Bool) -> Bool {
            if let known = lock.withLock({ validity[name] }) { return known }
            let value = compute()
            lock.withLock {
                if validity.count >= Self.limit { validity.removeAll() }
                validity[name] = value
            }
            return value
        }

        func rules(named name: String, _ load: () -> Result<ZoneRules, ZoneError>) -> Result<ZoneRules, ZoneError> {
            if let known = lock.withLock({ rules[name] }) { return known }
            let value = load()
            lock.withLock {
                if rules.count >= Self.limit { rules.removeAll() }
                rules[name] = value
            }
            return value
        }
    }

    /// Whether `name` is a zone name systemd accepts: `UTC`, or a relative path of letters, digits, `-`, `_`, `+`
    /// and single `/` separators naming an installed TZif file.
    public func isValidName(_ name: String) -> Bool {
        if name == "UTC" { return true }
        guard Self.isWellFormedName(name) else { return false }
        return cache.validity(of: name) { isInstalledZoneFile(name) }
    }

    private func isInstalledZoneFile(_ name: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path(of: name)) else { return false }
        defer { try? handle.close() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path(of: name), isDirectory: &isDirectory), !isDirectory.boolValue
        else { return false }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic.elementsEqual("TZif".utf8)
    }

    /// The rules of zone `name` (an IANA name such as `Europe/Berlin`).
    public func rules(named name: String) throws(ZoneError) -> ZoneRules {
        guard Self.isWellFormedName(name) || name == "UTC" else { throw .unknownZone(name) }
        return try cache.rules(named: name) { Result { () throws(ZoneError) in try load(name) } }.get()
    }

    private func load(_ name: String) throws(ZoneError) -> ZoneRules {
        guard let data = FileManager.default.contents(atPath: path(of: name)) else {
            if name == "UTC" { return .utc }
            throw .unknownZone(name)
        }
        do {
            return try ZoneRules(tzif: Array(data), name: name)
        } catch {
            throw .unknownZone(name)
        }
    }

    /// The bytes of the file `name` in the database (such as `posixrules`), if it can be read.
    func contents(of name: String) -> [UInt8]? {
        guard Self.isWellFormedName(name), let data = FileManager.default.contents(atPath: path(of: name)) else {
            return nil
        }
        return Array(data)
    }

    private func path(of name: String) -> String {
        directory + "/" + name
    }

    static func isWellFormedName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                if previousWasSlash { return false }
                previousWasSlash = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"):
                previousWasSlash = false
            default:
                return false
            }
        }
        return !previousWasSlash && name.utf8.count < 4096
    }
}
