import Foundation

/// Where a `ZoneDatabase` finds its zone files: ChimeCore reads no file itself. The daemon and chimectl pass one
/// that reads a tzdata directory (`ZoneDatabase.system`, `/usr/share/zoneinfo`); a test may hand in its own.
public protocol ZoneSource: Sendable {
    /// The directory the zone files are in, for what is told of them and for `TZ` values naming a file in it.
    var directory: String { get }
    /// Whether `name` (a well-formed relative path) is a regular file starting with the TZif magic.
    func isZoneFile(_ name: String) -> Bool
    /// The bytes of the file `name` (a well-formed relative path), or `nil` when there is none.
    func contents(of name: String) -> [UInt8]?
    /// The names of the zones installed, for suggesting one when a name is misspelt; asked only then.
    func zoneNames() -> [String]
}

/// The installed time zones (a tzdata directory such as `/usr/share/zoneinfo`), looked up by IANA name.
public struct ZoneDatabase: Sendable {
    public let source: any ZoneSource
    /// What was already looked up, for a database made by `cachingLookups()`.
    private let cache: Cache?

    public init(source: any ZoneSource) {
        self.source = source
        cache = nil
    }

    /// The directory of the zone files.
    public var directory: String { source.directory }

    /// The same database, reading each zone file at most once from now on (for one load of thousands of files
    /// that name the same few zones). Take a new one for each load, so that an updated tzdata is read again.
    public func cachingLookups() -> ZoneDatabase {
        ZoneDatabase(source: source, cache: Cache())
    }

    private init(source: any ZoneSource, cache: Cache) {
        self.source = source
        self.cache = cache
    }

    /// What a database made by `cachingLookups()` has looked up so far: the answers a load was given.
    public struct Lookups: Sendable {
        var validity: [String: Bool] = [:]
        var rules: [String: Result<ZoneRules, ZoneError>] = [:]

        /// None: what a load that looked nothing up was told.
        public init() {}

        init(validity: [String: Bool], rules: [String: Result<ZoneRules, ZoneError>]) {
            self.validity = validity
            self.rules = rules
        }
    }

    /// What this caching database has looked up; empty for one that does not cache.
    public var lookups: Lookups {
        cache?.lookups ?? Lookups()
    }

    /// Whether this database answers every lookup of `earlier` as it was answered then (the same validity, the
    /// same rules): what was loaded with those answers would load the same now.
    public func answersAlike(_ earlier: Lookups) -> Bool {
        for (name, valid) in earlier.validity where isValidName(name) != valid {
            return false
        }
        for (name, result) in earlier.rules {
            switch (result, Result { () throws(ZoneError) in try rules(named: name) }) {
            case (.success(let old), .success(let new)) where old.hasSameRules(as: new): continue
            case (.failure(let old), .failure(let new)) where old == new: continue
            default: return false
            }
        }
        return true
    }

    /// Whether `name` is a zone name systemd accepts: `UTC`, or a relative path of letters, digits, `-`, `_`, `+`
    /// and single `/` separators naming an installed TZif file.
    public func isValidName(_ name: String) -> Bool {
        // The last word of every calendar event is asked about ("09:55:00"): answer what cannot be a name at once,
        // without a lookup in the cache (or a place in it).
        guard name == "UTC" || Self.isWellFormedName(name) else { return false }
        guard let cache else { return lookUpValidity(of: name) }
        return cache.value(for: name, in: \.validity) { lookUpValidity(of: name) }
    }

    /// The rules of zone `name` (an IANA name such as `Europe/Berlin`).
    public func rules(named name: String) throws(ZoneError) -> ZoneRules {
        guard let cache else { return try lookUpRules(named: name) }
        let result = cache.value(for: name, in: \.rules) { () -> Result<ZoneRules, ZoneError> in
            Result { () throws(ZoneError) in try lookUpRules(named: name) }
        }
        return try result.get()
    }

    private func lookUpValidity(of name: String) -> Bool {
        if name == "UTC" { return true }
        guard Self.isWellFormedName(name) else { return false }
        return source.isZoneFile(name)
    }

    private func lookUpRules(named name: String) throws(ZoneError) -> ZoneRules {
        guard Self.isWellFormedName(name) || name == "UTC" else { throw .unknownZone(name) }
        guard let data = source.contents(of: name) else {
            if name == "UTC" { return .utc }
            throw .unknownZone(name)
        }
        do {
            return try ZoneRules(tzif: data, name: name)
        } catch {
            throw .unknownZone(name)
        }
    }

    /// The installed zone `name` most likely misspells (`Europe/Berlin` for `Europe/Berlinn` or for `Berlin`), or
    /// `nil` when none is close.
    public func suggestion(for name: String) -> String? {
        let names = source.zoneNames().filter { Self.isWellFormedName($0) }
        if let close = Suggestion.closest(to: name, among: names) { return close }
        // A city without its region: the zone whose last part it names.
        let city = name.split(separator: "/").last.map(String.init) ?? name
        let byCity = Dictionary(names.map { ($0.split(separator: "/").last.map(String.init) ?? $0, $0) }) { a, _ in a }
        return Suggestion.closest(to: city, among: byCity.keys.sorted()).flatMap { byCity[$0] }
    }

    /// The raw bytes of the zone file `name` (for `posixrules`), or `nil` if there is none.
    func contents(of name: String) -> [UInt8]? {
        guard Self.isWellFormedName(name) else { return nil }
        return source.contents(of: name)
    }

    public static func isWellFormedName(_ name: String) -> Bool {
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

    /// Lookups already made, by zone name; shared by the copies of one caching database, possibly across threads.
    private final class Cache: Sendable {
        struct Tables {
            var validity: [String: Bool] = [:]
            var rules: [String: Result<ZoneRules, ZoneError>] = [:]
        }

        private let tables = Locked(Tables())

        var lookups: Lookups {
            tables.withLock { Lookups(validity: $0.validity, rules: $0.rules) }
        }

        func value<Value>(
            for name: String, in table: WritableKeyPath<Tables, [String: Value]>, lookUp: () -> Value
        ) -> Value {
            if let known = tables.withLock({ $0[keyPath: table][name] }) { return known }
            let value = lookUp()
            tables.withLock { $0[keyPath: table][name] = value }
            return value
        }
    }
}
