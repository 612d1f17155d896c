import Foundation

/// systemd timestamps (systemd.time(7)): reading them as `systemd-analyze timestamp` does, and writing instants
/// the ways systemd and chime print them.
///
/// Instants are `Date`s carrying whole microseconds, systemd's resolution. Nothing here reads the clock or the
/// process's time zone: "now", the local zone and the zone database are arguments.
public enum Timestamp {
    /// The latest instant systemd accepts from a date and time, and formats: 9999-12-30 23:59:59 UTC, chosen by
    /// systemd so that it is still in the year 9999 in every zone.
    public static let latestFormattable = Date(epochMicroseconds: latestFormattableMicroseconds)

    static let latestFormattableMicroseconds: Int64 = 253_402_214_399_000_000
}
