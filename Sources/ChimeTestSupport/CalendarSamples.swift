/// Zones and instants where calendar searches go wrong if anything does: the zones have DST changes of an hour and
/// of half an hour, or none, or a fractional offset; the instants sit on or inside those changes in 2026, on
/// ordinary days, and on the last second systemd computes. Shared by CalendarRobustnessTests and the calendar fuzz
/// target (fuzzing/), so that both look at the same hard places.
public enum CalendarSamples {
    public static let zoneNames = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]

    /// Microseconds since the epoch, some with fractional seconds.
    public static let instants: [Int64] = [
        1_774_746_000_000_000,  // 2026-03-29 01:00:00Z, Berlin springs forward
        1_792_890_605_500_000,  // 2026-10-25 01:10:05.5Z, inside Berlin's repeated hour
        1_772_952_000_000_000,  // 2026-03-08 06:40:00Z, New York springs forward
        1_793_514_000_000_001,  // 2026-11-01 06:20:00.000001Z, inside New York's repeated hour
        1_775_314_200_000_000,  // 2026-04-04 14:50:00Z, Lord Howe falls back half an hour
        1_791_044_400_000_000,  // 2026-10-03 16:20:00Z, Lord Howe springs forward half an hour
        1_781_518_830_250_000,  // 2026-06-15 10:20:30.25Z
        1_835_352_000_000_000,  // 2028-02-28 12:00:00Z
        7_258_118_399_000_000,  // 2199-12-31 23:59:59Z, the last second systemd computes
    ]
}
