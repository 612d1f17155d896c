import ChimeCore
import Foundation

/// Works out the local time zone the way glibc does, from a `TZ` value and `/etc/localtime`.
///
/// The caller passes the environment's `TZ`; nothing here reads the process environment.
public enum LocalZone {
    /// The zone for `tz` (the value of `TZ`, or `nil` when unset):
    /// - unset: the TZif file `localtime` (named after the zone its symlink points to);
    /// - empty: UTC;
    /// - `:NAME`, `NAME`: the zone file `NAME` (absolute, or under the tzdata directory);
    /// - otherwise a POSIX rule such as `CET-1CEST,M3.5.0,M10.5.0/3`; if that fails too, UTC.
    public static func resolve(
        tz: String?, zones: ZoneDatabase = .system, localtime: String = "/etc/localtime"
    ) -> ZoneRules {
        guard var value = tz else {
            return file(at: localtime, name: name(ofLink: localtime, zones: zones) ?? "localtime") ?? .utc
        }
        if value.isEmpty { return .utc }
        if value.hasPrefix(":") { value.removeFirst() }
        if value.isEmpty { return .utc }
        let path = value.hasPrefix("/") ? value : zones.directory + "/" + value
        if let rules = file(at: path, name: value) { return rules }
        if let rules = try? ZoneRules(posixRule: value, zones: zones) { return rules }
        return .utc
    }

    private static func file(at path: String, name: String) -> ZoneRules? {
        guard !path.split(separator: "/").contains(".."), let data = FileManager.default.contents(atPath: path) else {
            return nil
        }
        return try? ZoneRules(tzif: Array(data), name: name)
    }

    /// `Europe/Berlin` for a link to `/usr/share/zoneinfo/Europe/Berlin`.
    private static func name(ofLink path: String, zones: ZoneDatabase) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { return nil }
        let marker = "zoneinfo/"
        guard let range = target.range(of: marker, options: .backwards) else { return nil }
        let name = String(target[range.upperBound...])
        return ZoneDatabase.isWellFormedName(name) ? name : nil
    }
}
