import ChimePlatform
import Foundation
import Testing

@testable import ChimeCore

/// Expected instants and texts come from systemd 252 itself: its `parse_timestamp()`, `format_timestamp()` and
/// `format_timestamp_relative()` (libsystemd-shared-252.so, the code behind `systemd-analyze timestamp`), run with
/// the clock pinned to `now` and `TZ` set to the local zone, one fresh process per case. Every case that does not
/// depend on the clock or name a zone agrees with `systemd-analyze timestamp`'s "UNIX seconds:" line; zone names
/// cannot be checked that way because systemd-analyze 252 rejects every IANA zone suffix (see
/// `zoneSuffixesFollowParseTimestampNotSystemdAnalyze`). Error columns are chime's own.
@Suite struct TimestampTests {
    /// Monday 2026-11-30 09:11:53.241911 UTC.
    static let now = Date(epochMicroseconds: 1_796_029_913_241_911)

    static let acceptedInUTC: [(input: String, microseconds: Int64)] = [
        ("2026-12-01 07:00", 1_796_108_400_000_000),
        ("2026-12-01 07:00:00", 1_796_108_400_000_000),
        ("2026-12-01 07:00:00.5", 1_796_108_400_500_000),
        ("2026-12-01 07:00:00.123456789", 1_796_108_400_123_457),
        ("2026-12-01 07:00:00.1234565", 1_796_108_400_123_457),
        ("2026-12-01 07:00:00.1234564999", 1_796_108_400_123_456),
        ("2026-12-01 07:00:00.9999995", 1_796_108_401_000_000),
        ("2026-12-01 07:00:00.0000005", 1_796_108_400_000_001),
        ("26-12-01 07:00", 1_796_108_400_000_000),
        ("26-12-01 07:00:00", 1_796_108_400_000_000),
        ("26-12-01 07:00:00.25", 1_796_108_400_250_000),
        ("68-12-31", 3_124_137_600_000_000),
        ("70-01-01", 0),
        ("99-12-31", 946_598_400_000_000),
        ("00-01-01", 946_684_800_000_000),
        ("1-2-3", 981_158_400_000_000),
        ("2026-12-01", 1_796_083_200_000_000),
        ("26-12-01", 1_796_083_200_000_000),
        ("2026-1-1 7:0:0", 1_767_250_800_000_000),
        ("2026-12-0107:00", 1_796_108_400_000_000),
        ("2026-12-01  07:00", 1_796_108_400_000_000),
        ("2026-12-01\t07:00", 1_796_108_400_000_000),
        (" 2026-12-01 07:00", 1_796_108_400_000_000),
        ("\t2026-12-01 07:00", 1_796_108_400_000_000),
        ("2026- 12- 01 07: 00", 1_796_108_400_000_000),
        ("2026-11-31", 1_796_083_200_000_000),
        ("2026-02-29", 1_772_323_200_000_000),
        ("2026-02-30", 1_772_409_600_000_000),
        ("2024-02-29", 1_709_164_800_000_000),
        ("2026-12-01 23:59:60", 1_796_169_600_000_000),
        ("2026-12-01 23:59:61", 1_796_169_601_000_000),
        ("1970-01-01 00:00:00", 0),
        ("1970-01-01 00:00:00 UTC", 0),
        ("9999-12-30 23:59:59", 253_402_214_399_000_000),
        ("9999-12-30 23:59:59 UTC", 253_402_214_399_000_000),
        ("07:00", 1_796_022_000_000_000),
        ("07:00:00", 1_796_022_000_000_000),
        ("07:00:00.25", 1_796_022_000_250_000),
        ("7:0", 1_796_022_000_000_000),
        ("7:0:0", 1_796_022_000_000_000),
        ("23:59:59.9999995", 1_796_083_200_000_000),
        ("Tue 2026-12-01 07:00", 1_796_108_400_000_000),
        ("Tuesday 2026-12-01 07:00", 1_796_108_400_000_000),
        ("tue 2026-12-01 07:00", 1_796_108_400_000_000),
        ("TUE 2026-12-01 07:00", 1_796_108_400_000_000),
        ("Tue  2026-12-01 07:00", 1_796_108_400_000_000),
        ("Tue 2026-12-01", 1_796_083_200_000_000),
        ("Tue 2026-11-31", 1_796_083_200_000_000),
        ("Tue 2026-12-01 23:59:60", 1_796_169_600_000_000),
        ("Sunday 2026-11-29", 1_795_910_400_000_000),
        ("Sun 2026-11-29", 1_795_910_400_000_000),
        ("Wednesday 2026-12-02", 1_796_169_600_000_000),
        ("Thu 2026-12-03", 1_796_256_000_000_000),
        ("Fri 2026-12-04", 1_796_342_400_000_000),
        ("Saturday 2026-12-05", 1_796_428_800_000_000),
        ("Mon 07:00", 1_796_022_000_000_000),
        ("mon 07:00", 1_796_022_000_000_000),
        ("Monday 07:00:00", 1_796_022_000_000_000),
        ("Mon 07:00 UTC", 1_796_022_000_000_000),
        ("now", 1_796_029_913_241_911),
        ("today", 1_795_996_800_000_000),
        ("yesterday", 1_795_910_400_000_000),
        ("tomorrow", 1_796_083_200_000_000),
        ("today UTC", 1_795_996_800_000_000),
        ("yesterday UTC", 1_795_910_400_000_000),
        ("tomorrow utc", 1_796_083_200_000_000),
        ("+5min", 1_796_030_213_241_911),
        ("-1h", 1_796_026_313_241_911),
        ("+0", 1_796_029_913_241_911),
        ("-0", 1_796_029_913_241_911),
        ("+ 5min", 1_796_030_213_241_911),
        ("+1h 30min", 1_796_035_313_241_911),
        ("+1.5h", 1_796_035_313_241_911),
        ("-2d", 1_795_857_113_241_911),
        ("+3d 4h", 1_796_303_513_241_911),
        ("5min ago", 1_796_029_613_241_911),
        ("5min  ago", 1_796_029_613_241_911),
        ("5min left", 1_796_030_213_241_911),
        ("1h 30min ago", 1_796_024_513_241_911),
        ("1y left", 1_827_587_513_241_911),
        ("@0", 0),
        ("@1", 1_000_000),
        ("@1.5", 1_500_000),
        ("@1796108400", 1_796_108_400_000_000),
        ("@1796108400.5", 1_796_108_400_500_000),
        ("@5min", 300_000_000),
        ("@ 5", 5_000_000),
        ("@1796108400.1234567", 1_796_108_400_123_456),
        ("@253402214399", 253_402_214_399_000_000),
        ("@253402214400", 253_402_214_400_000_000),
        ("2026-12-01 07:00 UTC", 1_796_108_400_000_000),
        ("2026-12-01 07:00 utc", 1_796_108_400_000_000),
        ("2026-12-01 07:00 Utc", 1_796_108_400_000_000),
        ("2026-12-01 07:00:00.5 UTC", 1_796_108_400_500_000),
        ("07:00 UTC", 1_796_022_000_000_000),
        ("2026-12-01 UTC", 1_796_083_200_000_000),
        ("2026-12-01 07:00 GMT", 1_796_108_400_000_000),
        ("2026-12-01 07:00 Asia/Tokyo", 1_796_076_000_000_000),
        ("2026-12-01 07:00:00.5 Asia/Tokyo", 1_796_076_000_500_000),
        ("Tue 2026-12-01 07:00 Asia/Tokyo", 1_796_076_000_000_000),
        ("2026-12-01 Asia/Tokyo", 1_796_050_800_000_000),
        ("07:00 Asia/Tokyo", 1_795_989_600_000_000),
        ("today Asia/Tokyo", 1_795_964_400_000_000),
        ("tomorrow Asia/Tokyo", 1_796_050_800_000_000),
        ("2026-12-01 07:00 America/New_York", 1_796_126_400_000_000),
        ("2026-07-01 07:00 America/New_York", 1_782_903_600_000_000),
        ("2026-12-01 07:00 Europe/Berlin", 1_796_104_800_000_000),
        ("2026-07-01 07:00 Europe/Berlin", 1_782_882_000_000_000),
        ("2026-12-01 07:00 CET", 1_796_104_800_000_000),
        ("2026-07-01 07:00 CET", 1_782_885_600_000_000),
        ("2026-12-01 07:00 EST", 1_796_126_400_000_000),
        ("2026-07-01 07:00 EST5EDT", 1_782_903_600_000_000),
        ("today EST", 1_796_014_800_000_000),
        ("2026-12-01 07:00 Etc/GMT+5", 1_796_126_400_000_000),
        ("2026-12-01 07:00 Etc/GMT-14", 1_796_058_000_000_000),
        ("2026-12-01 07:00 Asia/Kolkata", 1_796_088_600_000_000),
        ("2026-12-01 07:00 Australia/Lord_Howe", 1_796_068_800_000_000),
    ]

    @Test(arguments: acceptedInUTC)
    func parsesAsSystemdDoes(input: String, microseconds: Int64) throws {
        let date = try Timestamp.parse(input, now: Self.now, localZone: .utc, zones: .system)
        #expect(date.epochMicroseconds == microseconds)
    }

    /// `dependsOnNow` is true exactly when another "now" (400 days and an hour and a half second later) gives
    /// another instant (or none: "Mon 07:00" only reads on a Monday): what At= and `chimectl add --at` rely on to
    /// refuse or pin a relative time.
    @Test(arguments: acceptedInUTC + [("07:00 Asia/Tokyo", 0), ("Tue 2026-12-01 Asia/Tokyo", 0), ("-5min", 0)])
    func saysWhetherTheInstantDependsOnNow(input: String, microseconds: Int64) throws {
        let later = Self.now.addingTimeInterval(400 * 86_400 + 3_600.5)
        let reading = try Timestamp.read(input, now: Self.now, localZone: .utc, zones: .system)
        let again = try? Timestamp.parse(input, now: later, localZone: .utc, zones: .system)
        #expect(reading.dependsOnNow == (again != reading.date))
    }

    /// Rejections with the local zone UTC. systemd says "Invalid argument" for all of them but `@-5` ("Numerical
    /// result out of range"); `@infinity` it accepts as "never", which is not an instant.
    static let rejectedInUTC: [(input: String, reason: TimeParseError.Reason, column: Int)] = [
        ("2026-12-01 07:00:00.", .missingFractionDigits, 21),
        ("2026-12-01 07:00:00.1x", .unrecognizedTimestamp, 22),
        ("2026-12-01 07:00:00,5", .unrecognizedTimestamp, 20),
        ("2026-12-01 07:00.5", .unrecognizedTimestamp, 17),
        ("2026-12-01 07:00 ", .unrecognizedTimestamp, 18),
        ("2026-12-01T07:00", .unrecognizedTimestamp, 11),
        ("2026-12-01T07:00:00Z", .unrecognizedTimestamp, 11),
        ("2026-12-01 07:00 Z", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 +0100", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00UTC", .unrecognizedTimestamp, 17),
        ("2026-12-01 07:00  UTC", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 UTC UTC", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 EDT", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 Asia/Tokio", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 zone.tab", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 UTC Asia/Tokyo", .unrecognizedTimestamp, 18),
        ("2026-12-01 07:00 Asia/Tokyo UTC", .unrecognizedTimestamp, 18),
        ("Wed 2026-12-01 07:00", .weekdayMismatch, 1),
        ("Mon 2026-11-31", .weekdayMismatch, 1),
        ("Tue,2026-12-01 07:00", .unrecognizedTimestamp, 1),
        ("Tues 2026-12-01 07:00", .unrecognizedTimestamp, 1),
        ("Monday07:00", .unrecognizedTimestamp, 1),
        ("Tue 07:00", .weekdayMismatch, 1),
        ("Mon today", .unrecognizedTimestamp, 5),
        ("Mon", .unrecognizedTimestamp, 1),
        ("69-01-01", .beforeEpoch, 1),
        ("1969-12-31 23:59:59", .beforeEpoch, 1),
        ("0000-01-01", .beforeEpoch, 1),
        ("1900-01-01", .beforeEpoch, 1),
        ("0070-01-01", .beforeEpoch, 1),
        ("9999-12-30 23:59:59.5 UTC", .tooLate, 1),
        ("9999-12-31 00:00:00 UTC", .tooLate, 1),
        ("10000-01-01", .unrecognizedTimestamp, 5),
        ("2026-13-01", .unrecognizedTimestamp, 6),
        ("2026-00-01", .unrecognizedTimestamp, 6),
        ("2026-12-00", .unrecognizedTimestamp, 9),
        ("2026-12-32", .unrecognizedTimestamp, 9),
        ("2026-012-01", .unrecognizedTimestamp, 8),
        ("2026-12-01 24:00", .unrecognizedTimestamp, 12),
        ("2026-12-01 23:60", .unrecognizedTimestamp, 16),
        ("2026-12-01 23:59:62", .unrecognizedTimestamp, 18),
        ("+2026-12-01", .unknownUnit, 6),
        ("Now", .unrecognizedTimestamp, 1),
        ("NOW", .unrecognizedTimestamp, 1),
        (" now", .unrecognizedTimestamp, 2),
        ("now ", .unrecognizedTimestamp, 1),
        ("now UTC", .unrecognizedTimestamp, 1),
        ("Today", .unrecognizedTimestamp, 1),
        ("today ", .unrecognizedTimestamp, 1),
        (" today", .unrecognizedTimestamp, 2),
        ("tomorrow Asia/Tokyo x", .unrecognizedTimestamp, 1),
        ("now Asia/Tokyo", .unrecognizedTimestamp, 1),
        ("@0 Asia/Tokyo", .unrecognizedTimestamp, 1),
        ("+5min Asia/Tokyo", .unrecognizedTimestamp, 1),
        ("now EST", .unrecognizedTimestamp, 1),
        ("@5 EST", .unknownUnit, 4),
        ("+5min ago", .unknownUnit, 7),
        ("5min", .unrecognizedTimestamp, 2),
        ("5s", .unrecognizedTimestamp, 2),
        ("5", .unrecognizedTimestamp, 2),
        ("ago", .unrecognizedTimestamp, 1),
        (" ago", .empty, 1),
        ("+", .empty, 2),
        ("-", .empty, 2),
        ("+ ", .empty, 3),
        ("@", .empty, 2),
        ("@ ", .empty, 3),
        ("@-5", .negative, 2),
        ("@1.5 UTC", .unknownUnit, 6),
        ("@0x10", .unknownUnit, 3),
        ("@1e3", .unknownUnit, 3),
        ("@infinity", .infinite, 1),
        ("+infinity", .tooLate, 1),
        ("-infinity", .beforeEpoch, 1),
        ("infinity ago", .beforeEpoch, 1),
        ("infinity left", .tooLate, 1),
        ("-100y", .beforeEpoch, 1),
        ("+8000y", .tooLate, 1),
        ("UTC", .unrecognizedTimestamp, 1),
        (" UTC", .unrecognizedTimestamp, 1),
    ]

    @Test(arguments: rejectedInUTC)
    func rejectsAsSystemdDoes(input: String, reason: TimeParseError.Reason, column: Int) {
        #expect(throws: TimeParseError(input: input, reason: reason, column: column)) {
            try Timestamp.parse(input, now: Self.now, localZone: .utc, zones: .system)
        }
    }

    enum Outcome: Sendable {
        case instant(Int64)
        case rejected(TimeParseError.Reason)
    }

    /// Local zones with DST: skipped and repeated hours, abbreviations pinning standard or daylight time (also
    /// where they contradict the date), "today" on a DST day, a midnight that does not exist (São Paulo 2018),
    /// half-hour DST (Lord Howe) and Ireland's winter "daylight" time.
    static let inZones: [(zone: String, now: Int64, input: String, outcome: Outcome)] = [
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 01:59:59", .instant(1_774_745_999_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 02:00", .instant(1_774_746_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 02:30", .instant(1_774_747_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 02:59:59", .instant(1_774_749_599_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 03:00", .instant(1_774_746_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 01:59:59", .instant(1_792_886_399_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:00", .instant(1_792_890_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:30", .instant(1_792_891_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:59:59", .instant(1_792_893_599_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 03:00", .instant(1_792_893_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:30 CEST", .instant(1_792_888_200_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:30 cest", .instant(1_792_888_200_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:30 CET", .instant(1_792_891_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-10-25 02:30 cet", .instant(1_792_891_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 02:30 CEST", .instant(1_774_744_200_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-03-29 02:30 CET", .instant(1_774_747_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-07-01 12:00", .instant(1_782_900_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-07-01 12:00 CEST", .instant(1_782_900_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-07-01 12:00 CET", .instant(1_782_903_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-07-01 12:00 cet", .instant(1_782_903_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00", .instant(1_796_122_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 CEST", .instant(1_796_119_200_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 CET", .instant(1_796_122_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 UTC", .instant(1_796_126_400_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 Europe/Berlin", .instant(1_796_122_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 Asia/Tokyo", .instant(1_796_094_000_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "1970-01-01 01:00", .instant(0)),
        ("Europe/Berlin", 1_796_029_913_241_911, "1970-01-01 00:59:59", .rejected(.beforeEpoch)),
        ("Europe/Berlin", 1_796_029_913_241_911, "1970-01-01 00:00 UTC", .instant(0)),
        ("Europe/Berlin", 1_796_029_913_241_911, "today", .instant(1_795_993_200_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "yesterday", .instant(1_795_906_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "tomorrow", .instant(1_796_079_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "today UTC", .instant(1_795_996_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "today CEST", .instant(1_795_989_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "12:00", .instant(1_796_036_400_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "12:00 CEST", .instant(1_796_032_800_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "Mon 12:00", .instant(1_796_036_400_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "Tue 00:30", .rejected(.weekdayMismatch)),
        ("Europe/Berlin", 1_796_029_913_241_911, "Mon 00:30 UTC", .instant(1_795_998_600_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "@1796108400", .instant(1_796_108_400_000_000)),
        ("Europe/Berlin", 1_796_029_913_241_911, "+5min", .instant(1_796_030_213_241_911)),
        ("Europe/Berlin", 1_796_029_913_241_911, "CEST", .rejected(.unrecognizedTimestamp)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00CEST", .rejected(.unrecognizedTimestamp)),
        ("Europe/Berlin", 1_796_029_913_241_911, "2026-12-01 12:00 MEZ", .rejected(.unrecognizedTimestamp)),
        ("Europe/Berlin", 1_774_744_200_000_000, "today", .instant(1_774_738_800_000_000)),
        ("Europe/Berlin", 1_774_744_200_000_000, "tomorrow", .instant(1_774_821_600_000_000)),
        ("Europe/Berlin", 1_774_744_200_000_000, "02:30", .instant(1_774_747_800_000_000)),
        ("Europe/Berlin", 1_774_744_200_000_000, "03:30", .instant(1_774_747_800_000_000)),
        ("Europe/Berlin", 1_792_888_200_000_000, "today", .instant(1_792_879_200_000_000)),
        ("Europe/Berlin", 1_792_888_200_000_000, "02:30", .instant(1_792_891_800_000_000)),
        ("Europe/Berlin", 1_792_888_200_000_000, "02:30 CET", .instant(1_792_891_800_000_000)),
        ("Europe/Berlin", 1_792_888_200_000_000, "tomorrow", .instant(1_792_969_200_000_000)),
        ("Europe/Berlin", 1_782_900_000_000_000, "today", .instant(1_782_856_800_000_000)),
        ("Europe/Berlin", 1_782_900_000_000_000, "12:00 CET", .instant(1_782_903_600_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "2026-12-01 07:00", .instant(1_796_076_000_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "2026-12-01 07:00 JST", .instant(1_796_076_000_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "today", .instant(1_795_964_400_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "Mon 07:00", .instant(1_795_989_600_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "Mon 07:00 UTC", .instant(1_796_022_000_000_000)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "1970-01-01 08:59:59", .rejected(.beforeEpoch)),
        ("Asia/Tokyo", 1_796_029_913_241_911, "1970-01-01 09:00", .instant(0)),
        ("America/New_York", 1_796_029_913_241_911, "2026-11-01 01:30", .instant(1_793_511_000_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-11-01 01:30 EDT", .instant(1_793_511_000_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-11-01 01:30 EST", .instant(1_793_514_600_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-11-01 01:30 est", .instant(1_793_514_600_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-03-08 02:30", .instant(1_772_955_000_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-03-08 02:30 EDT", .instant(1_772_951_400_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-03-08 02:30 EST", .instant(1_772_955_000_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-07-01 12:00 EST", .instant(1_782_925_200_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "2026-12-01 12:00 EDT", .instant(1_796_140_800_000_000)),
        ("America/New_York", 1_796_029_913_241_911, "1969-12-31 19:00", .instant(0)),
        ("America/New_York", 1_796_029_913_241_911, "today", .instant(1_796_014_800_000_000)),
        ("America/Sao_Paulo", 1_541_246_400_000_000, "today", .instant(1_541_214_000_000_000)),
        ("America/Sao_Paulo", 1_541_246_400_000_000, "tomorrow", .instant(1_541_300_400_000_000)),
        ("America/Sao_Paulo", 1_541_246_400_000_000, "2018-11-04 00:30", .instant(1_541_302_200_000_000)),
        ("America/Sao_Paulo", 1_541_246_400_000_000, "2018-11-04 01:00", .instant(1_541_300_400_000_000)),
        ("America/Sao_Paulo", 1_541_246_400_000_000, "2019-02-16 23:30", .instant(1_550_367_000_000_000)),
        ("America/Sao_Paulo", 1_796_029_913_241_911, "2026-12-01 07:00", .instant(1_796_119_200_000_000)),
        ("America/Sao_Paulo", 1_796_029_913_241_911, "2026-12-01 07:00 -03", .instant(1_796_119_200_000_000)),
        ("Australia/Lord_Howe", 1_796_029_913_241_911, "2026-10-04 02:15", .instant(1_791_042_300_000_000)),
        ("Australia/Lord_Howe", 1_796_029_913_241_911, "2026-04-05 01:45", .instant(1_775_315_700_000_000)),
        ("Australia/Lord_Howe", 1_796_029_913_241_911, "2026-12-01 07:00 +11", .instant(1_796_068_800_000_000)),
        ("Europe/Dublin", 1_796_029_913_241_911, "2026-12-01 12:00", .instant(1_796_126_400_000_000)),
        ("Europe/Dublin", 1_796_029_913_241_911, "2026-07-01 12:00", .instant(1_782_903_600_000_000)),
        ("Europe/Dublin", 1_796_029_913_241_911, "2026-07-01 12:00 IST", .instant(1_782_903_600_000_000)),
        ("Europe/Dublin", 1_796_029_913_241_911, "2026-12-01 12:00 GMT", .instant(1_796_126_400_000_000)),
        ("Europe/Dublin", 1_796_029_913_241_911, "2026-12-01 12:00 IST", .instant(1_796_122_800_000_000)),
    ]

    @Test(arguments: inZones)
    func parsesInZonesAsSystemdDoes(zone: String, now: Int64, input: String, outcome: Outcome) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        let parse = { try Timestamp.parse(input, now: Date(epochMicroseconds: now), localZone: rules, zones: .system) }
        switch outcome {
        case .instant(let microseconds):
            #expect(try parse().epochMicroseconds == microseconds)
        case .rejected(let reason):
            let error = try #require(throws: TimeParseError.self) { try parse() }
            #expect(error.reason == reason)
        }
    }

    /// glibc's `tzname[1]` for Asia/Tokyo is "JDT", from the zone's 1948–1951 transitions, so systemd accepts
    /// `... JDT` there and reads the time with an offset one hour ahead of JST (glibc's fallback when no DST
    /// period lies within ±7.3 years), as `ZoneRules` does.
    @Test func acceptsHistoricDaylightAbbreviationAsSystemdDoes() throws {
        let tokyo = try ZoneDatabase.system.rules(named: "Asia/Tokyo")
        let date = try Timestamp.parse("2026-12-01 07:00 JDT", now: Self.now, localZone: tokyo, zones: .system)
        #expect(date.epochMicroseconds == 1_796_072_400_000_000)
    }

    /// An abbreviation asking for DST at a date with no DST nearby: glibc's `mktime()` looks for DST within
    /// 229,222,800 s (about 7.3 years) on either side and otherwise assumes a one-hour difference. Antarctica/Troll
    /// first observed DST on 2005-03-27, within reach of 1998-01-10 but not of 1997-10-01.
    @Test func readsDaylightTimeFarFromAnyAsGlibcDoes() throws {
        let troll = try ZoneDatabase.system.rules(named: "Antarctica/Troll")
        let near = try Timestamp.parse("1998-01-10 12:00 +02", now: Self.now, localZone: troll, zones: .system)
        #expect(near.epochMicroseconds == 884_426_400_000_000)
        let far = try Timestamp.parse("1997-10-01 12:00 +02", now: Self.now, localZone: troll, zones: .system)
        #expect(far.epochMicroseconds == 875_703_600_000_000)
    }

    /// "From now:" texts; `distance` is how many microseconds `instant` lies after `now` ("left") or before it
    /// ("ago").
    static let relative: [(distance: Int64, left: String, ago: String)] = [
        (0, "now", "now"),
        (1, "1us left", "1us ago"),
        (999, "999us left", "999us ago"),
        (1000, "1ms left", "1ms ago"),
        (999_999, "999ms left", "999ms ago"),
        (1_000_000, "1s left", "1s ago"),
        (59_999_999, "59s left", "59s ago"),
        (60_000_000, "1min 0s left", "1min 0s ago"),
        (61_000_000, "1min 1s left", "1min 1s ago"),
        (299_999_999, "4min 59s left", "4min 59s ago"),
        (300_000_000, "5min left", "5min ago"),
        (303_000_000, "5min left", "5min ago"),
        (3_599_999_999, "59min left", "59min ago"),
        (3_600_000_000, "1h 0min left", "1h 0min ago"),
        (3_660_000_000, "1h 1min left", "1h 1min ago"),
        (21_599_999_999, "5h 59min left", "5h 59min ago"),
        (21_600_000_000, "6h left", "6h ago"),
        (86_400_000_000, "24h left", "24h ago"),
        (89_999_999_999, "24h left", "24h ago"),
        (90_000_000_000, "1 day 1h left", "1 day 1h ago"),
        (172_799_999_999, "1 day 23h left", "1 day 23h ago"),
        (172_800_000_000, "2 days left", "2 days ago"),
        (604_799_999_999, "6 days left", "6 days ago"),
        (604_800_000_000, "1 week 0 days left", "1 week 0 days ago"),
        (691_200_000_000, "1 week 1 day left", "1 week 1 day ago"),
        (1_209_600_000_000, "2 weeks 0 days left", "2 weeks 0 days ago"),
        (1_296_000_000_000, "2 weeks 1 day left", "2 weeks 1 day ago"),
        (2_629_799_999_999, "4 weeks 2 days left", "4 weeks 2 days ago"),
        (2_629_800_000_000, "1 month 0 days left", "1 month 0 days ago"),
        (2_716_200_000_000, "1 month 1 day left", "1 month 1 day ago"),
        (5_432_400_000_000, "2 months 2 days left", "2 months 2 days ago"),
        (31_557_599_999_999, "11 months 30 days left", "11 months 30 days ago"),
        (31_557_600_000_000, "1 year 0 months left", "1 year 0 months ago"),
        (34_187_400_000_000, "1 year 1 month left", "1 year 1 month ago"),
        (76_264_200_000_000, "2 years 5 months left", "2 years 5 months ago"),
        (63_115_200_000_000, "2 years 0 months left", "2 years 0 months ago"),
    ]

    @Test(arguments: relative)
    func describesDistanceAsSystemdDoes(distance: Int64, left: String, ago: String) {
        let now = Self.now.epochMicroseconds
        #expect(Timestamp.relativeDescription(of: Date(epochMicroseconds: now + distance), now: Self.now) == left)
        #expect(Timestamp.relativeDescription(of: Date(epochMicroseconds: now - distance), now: Self.now) == ago)
    }

    static let formatted: [(zone: String, microseconds: Int64, seconds: String, microsecondsText: String)] = [
        ("UTC", 1, "Thu 1970-01-01 00:00:00 UTC", "Thu 1970-01-01 00:00:00.000001 UTC"),
        ("UTC", 1_796_108_400_500_000, "Tue 2026-12-01 07:00:00 UTC", "Tue 2026-12-01 07:00:00.500000 UTC"),
        ("UTC", 1_782_900_000_000_000, "Wed 2026-07-01 10:00:00 UTC", "Wed 2026-07-01 10:00:00.000000 UTC"),
        ("UTC", 253_402_214_399_000_000, "Thu 9999-12-30 23:59:59 UTC", "Thu 9999-12-30 23:59:59.000000 UTC"),
        ("Europe/Berlin", 1, "Thu 1970-01-01 01:00:00 CET", "Thu 1970-01-01 01:00:00.000001 CET"),
        ("Europe/Berlin", 1_796_108_400_500_000, "Tue 2026-12-01 08:00:00 CET", "Tue 2026-12-01 08:00:00.500000 CET"),
        ("Europe/Berlin", 1_782_900_000_000_000, "Wed 2026-07-01 12:00:00 CEST", "Wed 2026-07-01 12:00:00.000000 CEST"),
        ("Europe/Berlin", 253_402_214_399_000_000, "Fri 9999-12-31 00:59:59 CET", "Fri 9999-12-31 00:59:59.000000 CET"),
        ("America/Sao_Paulo", 1, "Wed 1969-12-31 21:00:00 -03", "Wed 1969-12-31 21:00:00.000001 -03"),
        (
            "America/Sao_Paulo", 1_796_108_400_500_000, "Tue 2026-12-01 04:00:00 -03",
            "Tue 2026-12-01 04:00:00.500000 -03"
        ),
        (
            "America/Sao_Paulo", 1_782_900_000_000_000, "Wed 2026-07-01 07:00:00 -03",
            "Wed 2026-07-01 07:00:00.000000 -03"
        ),
        (
            "America/Sao_Paulo", 253_402_214_399_000_000, "Thu 9999-12-30 20:59:59 -03",
            "Thu 9999-12-30 20:59:59.000000 -03"
        ),
        ("Asia/Kolkata", 1, "Thu 1970-01-01 05:30:00 IST", "Thu 1970-01-01 05:30:00.000001 IST"),
        ("Asia/Kolkata", 1_796_108_400_500_000, "Tue 2026-12-01 12:30:00 IST", "Tue 2026-12-01 12:30:00.500000 IST"),
        ("Asia/Kolkata", 1_782_900_000_000_000, "Wed 2026-07-01 15:30:00 IST", "Wed 2026-07-01 15:30:00.000000 IST"),
        ("Asia/Kolkata", 253_402_214_399_000_000, "Fri 9999-12-31 05:29:59 IST", "Fri 9999-12-31 05:29:59.000000 IST"),
        ("Australia/Lord_Howe", 1, "Thu 1970-01-01 10:00:00 AEST", "Thu 1970-01-01 10:00:00.000001 AEST"),
        (
            "Australia/Lord_Howe", 1_796_108_400_500_000, "Tue 2026-12-01 18:00:00 +11",
            "Tue 2026-12-01 18:00:00.500000 +11"
        ),
        (
            "Australia/Lord_Howe", 1_782_900_000_000_000, "Wed 2026-07-01 20:30:00 +1030",
            "Wed 2026-07-01 20:30:00.000000 +1030"
        ),
        (
            "Australia/Lord_Howe", 253_402_214_399_000_000, "Fri 9999-12-31 10:59:59 +11",
            "Fri 9999-12-31 10:59:59.000000 +11"
        ),
        ("Europe/Dublin", 1, "Thu 1970-01-01 01:00:00 IST", "Thu 1970-01-01 01:00:00.000001 IST"),
        ("Europe/Dublin", 1_796_108_400_500_000, "Tue 2026-12-01 07:00:00 GMT", "Tue 2026-12-01 07:00:00.500000 GMT"),
        ("Europe/Dublin", 1_782_900_000_000_000, "Wed 2026-07-01 11:00:00 IST", "Wed 2026-07-01 11:00:00.000000 IST"),
        ("Europe/Dublin", 253_402_214_399_000_000, "Thu 9999-12-30 23:59:59 GMT", "Thu 9999-12-30 23:59:59.000000 GMT"),
    ]

    @Test(arguments: formatted)
    func formatsAsSystemdDoes(zone: String, microseconds: Int64, seconds: String, microsecondsText: String) throws {
        let rules = try ZoneDatabase.system.rules(named: zone)
        let date = Date(epochMicroseconds: microseconds)
        #expect(Timestamp.format(date, zone: rules) == seconds)
        #expect(Timestamp.format(date, zone: rules, precision: .microseconds) == microsecondsText)
    }

    static let formattedInUTC: [(microseconds: Int64, seconds: String, microsecondsText: String)] = [
        (1, "Thu 1970-01-01 00:00:00 UTC", "Thu 1970-01-01 00:00:00.000001 UTC"),
        (1_796_108_400_500_000, "Tue 2026-12-01 07:00:00 UTC", "Tue 2026-12-01 07:00:00.500000 UTC"),
        (1_782_900_000_000_000, "Wed 2026-07-01 10:00:00 UTC", "Wed 2026-07-01 10:00:00.000000 UTC"),
        (253_402_214_399_000_000, "Thu 9999-12-30 23:59:59 UTC", "Thu 9999-12-30 23:59:59.000000 UTC"),
    ]

    @Test(arguments: formattedInUTC)
    func formatsInUTCAsSystemdDoes(microseconds: Int64, seconds: String, microsecondsText: String) {
        let date = Date(epochMicroseconds: microseconds)
        #expect(Timestamp.formatUTC(date) == seconds)
        #expect(Timestamp.formatUTC(date, precision: .microseconds) == microsecondsText)
    }

    /// systemd writes nothing for the epoch and earlier ("unset") and a placeholder after 9999-12-30 23:59:59 UTC.
    @Test(
        arguments: [
            (0, nil), (-1, nil), (-86_400_000_000, nil), (253_402_214_399_001_000, Timestamp.unformattable),
            (253_402_214_400_000_000, Timestamp.unformattable),
        ] as [(Int64, String?)])
    func formatsOutOfRangeAsSystemdDoes(microseconds: Int64, expected: String?) {
        let date = Date(epochMicroseconds: microseconds)
        #expect(Timestamp.format(date, zone: .utc) == expected)
        #expect(Timestamp.format(date, zone: .utc, precision: .microseconds) == expected)
        #expect(Timestamp.formatUTC(date) == expected)
    }

    @Test(
        arguments: [
            (1_796_104_800_000_000, "2026-12-01T06:00:00.000000Z", "2026-12-01T06:00:00Z"),
            (1_774_830_600_000_000, "2026-03-30T00:30:00.000000Z", "2026-03-30T00:30:00Z"),
            (1_781_518_830_250_000, "2026-06-15T10:20:30.250000Z", "2026-06-15T10:20:30.250000Z"),
            (1_796_029_913_241_911, "2026-11-30T09:11:53.241911Z", "2026-11-30T09:11:53.241911Z"),
            (0, "1970-01-01T00:00:00.000000Z", "1970-01-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"),
            (951_782_400_000_001, "2000-02-29T00:00:00.000001Z", "2000-02-29T00:00:00.000001Z"),
            (253_402_300_799_000_000, "9999-12-31T23:59:59.000000Z", "9999-12-31T23:59:59Z"),
        ] as [(Int64, String, String)])
    func writesISO8601(microseconds: Int64, always: String, whenNonZero: String) {
        let date = Date(epochMicroseconds: microseconds)
        #expect(Timestamp.iso8601(date, fraction: .microseconds) == always)
        #expect(Timestamp.iso8601(date) == whenNonZero)
    }

    /// What `iso8601` writes reads back, years past 9999 included: `@` timestamps reach them, and `At=@2534022174400`
    /// (found by fuzz-timestamp) was written as `82269-12-19T08:26:40.000000Z`, which `parseISO8601` refused.
    @Test(
        arguments: [
            0, 1_796_029_913_241_911, 253_402_300_799_000_000, 253_402_300_800_000_000, 2_534_022_174_400_000_000,
        ] as [Int64])
    func readsBackISO8601(microseconds: Int64) {
        let date = Date(epochMicroseconds: microseconds)
        for fraction in [Timestamp.FractionDigits.microseconds, .whenNonZero] {
            let text = Timestamp.iso8601(date, fraction: fraction)
            #expect(Timestamp.parseISO8601(text)?.epochMicroseconds == microseconds, "\(text)")
        }
    }

    @Test(arguments: [
        "82269-12-19T08:26:40", "2026-12-01 06:00:00Z", "999-12-01T06:00:00Z", "1234567-01-01T00:00:00Z",
        "294247-01-10T04:00:55Z", "2026-12-01T06:00:00.1234567Z",
    ])
    func refusesWhatISO8601DoesNotWrite(text: String) {
        #expect(Timestamp.parseISO8601(text) == nil)
    }

    /// systemd 252 gets `parse_timestamp("2026-12-01 07:00 Asia/Tokyo")` right, but `systemd-analyze timestamp`
    /// answers "Invalid argument" for every IANA zone suffix: it parses the zone in a forked child that renames
    /// itself, which wipes the argv string being parsed. chime follows `parse_timestamp()`.
    @Test func zoneSuffixesFollowParseTimestampNotSystemdAnalyze() throws {
        let date = try Timestamp.parse("2026-12-01 07:00 Asia/Tokyo", now: Self.now, localZone: .utc, zones: .system)
        #expect(Timestamp.iso8601(date) == "2026-11-30T22:00:00Z")
    }

    /// What `format(_:zone:precision:)` writes in UTC, `parse` reads back.
    @Test(arguments: [1, 1_796_108_400_500_000, 1_796_029_913_241_911, 253_402_214_399_000_000] as [Int64])
    func readsBackWhatItWrites(microseconds: Int64) throws {
        let date = Date(epochMicroseconds: microseconds)
        let text = try #require(Timestamp.format(date, zone: .utc, precision: .microseconds))
        #expect(
            try Timestamp.parse(text, now: Self.now, localZone: .utc, zones: .system).epochMicroseconds == microseconds)
    }

    @Test(
        arguments: [
            0, 1, -1, 999_999, 1_796_029_913_241_911, -1_796_029_913_241_911, 4_294_967_295_999_999,
        ] as [Int64])
    func keepsMicrosecondsThroughDate(microseconds: Int64) {
        #expect(Date(epochMicroseconds: microseconds).epochMicroseconds == microseconds)
    }
}
