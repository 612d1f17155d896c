import ChimeCore
import Foundation

/// Whether it is quiet, as `chimectl quiet status` and the snapshot show it.
public struct QuietStatus: Sendable {
    public var isQuiet: Bool
    public var reasons: [String]
    /// When quiet ends by itself, if it does.
    public var until: Date?
    /// The next instant quiet may begin or end with nothing else changing.
    public var nextChange: Date?
    /// How many deliveries are held.
    public var held: Int
    /// The zone the instants are shown in.
    public var zone: ZoneRules

    public init(_ quietness: Quietness, held: Int, zone: ZoneRules) {
        isQuiet = quietness.isQuiet
        reasons = quietness.reasons.map(\.description)
        until = quietness.expectedEnd
        nextChange = quietness.nextChange
        self.held = held
        self.zone = zone
    }

    /// `{"quiet":true,"reasons":[…],"until":…,"until_local":…,"next_change":…,"next_change_local":…,"held":N}`.
    public var json: JSONValue {
        func instant(_ date: Date?) -> JSONValue {
            date.map { .string(Timestamp.iso8601($0, fraction: .microseconds)) } ?? .null
        }
        func local(_ date: Date?) -> JSONValue {
            date.flatMap { Timestamp.format($0, zone: zone) }.map(JSONValue.string) ?? .null
        }
        return .object([
            ("quiet", .bool(isQuiet)), ("reasons", .array(reasons.map(JSONValue.string))),
            ("until", instant(until)), ("until_local", local(until)),
            ("next_change", instant(nextChange)), ("next_change_local", local(nextChange)),
            ("held", .number(Int64(held))),
        ])
    }
}
