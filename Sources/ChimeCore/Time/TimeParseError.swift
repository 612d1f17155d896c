/// Why a time span or timestamp could not be parsed.
///
/// systemd itself only says `EINVAL` ("Invalid argument") or `ERANGE` ("Numerical result out of range");
/// `isOutOfRange` tells which of the two it would have reported. `column` is 1-based and counts characters of
/// `input`, so a caller that knows the line can point at the spot (`file:line:column: reason`).
public struct TimeParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong at `column`.
    public enum Reason: Hashable, Sendable {
        /// The text is empty or only whitespace.
        case empty
        /// A number was expected here.
        case expectedNumber
        /// The text following a number is not one of systemd's time units.
        case unknownUnit
        /// A decimal point is not followed by any digit (`5.`, `5.min`).
        case missingFractionDigits
        /// A time span may not be negative.
        case negative
        /// The number or the total does not fit in 64 bits of microseconds.
        case overflow
        /// `infinity` must stand alone.
        case trailingText
        /// The text matches none of the timestamp forms systemd accepts.
        case unrecognizedTimestamp
        /// The weekday prefix names another day than the date it precedes.
        case weekdayMismatch
        /// The timestamp lies before 1970-01-01 00:00:00 UTC, which systemd cannot represent.
        case beforeEpoch
        /// The timestamp lies after 9999-12-30 23:59:59 UTC, the latest one systemd can format in every zone.
        case tooLate
        /// systemd accepts `@infinity` as "never", which is not an instant.
        case infinite
    }

    /// The complete text that was being parsed.
    public let input: String
    public let reason: Reason
    /// 1-based position of the offending character in `input`, counted in characters; one past the end when the
    /// problem is that the text ended too early.
    public let column: Int

    public init(input: String, reason: Reason, column: Int) {
        self.input = input
        self.reason = reason
        self.column = column
    }

    /// Creates the error for a position given as a UTF-8 byte offset into `input`.
    init(input: String, reason: Reason, byteOffset: Int) {
        let utf8 = Array(input.utf8)
        let prefix = utf8[..<min(max(byteOffset, 0), utf8.count)]
        self.init(input: input, reason: reason, column: String(decoding: prefix, as: UTF8.self).count + 1)
    }

    /// Whether systemd reports this case as `ERANGE` rather than `EINVAL`.
    public var isOutOfRange: Bool {
        switch reason {
        case .negative, .overflow: true
        default: false
        }
    }

    /// A one-line explanation, e.g. `column 2: unknown time unit`.
    public var description: String {
        "column \(column): \(reason.text)"
    }
}

extension TimeParseError.Reason {
    fileprivate var text: String {
        switch self {
        case .empty: "empty time value"
        case .expectedNumber: "expected a number"
        case .unknownUnit: "unknown time unit"
        case .missingFractionDigits: "expected digits after the decimal point"
        case .negative: "time span must not be negative"
        case .overflow: "time span too large"
        case .trailingText: "unexpected text after 'infinity'"
        case .unrecognizedTimestamp: "not a timestamp systemd understands"
        case .weekdayMismatch: "weekday does not match the date"
        case .beforeEpoch: "timestamp before 1970-01-01 00:00:00 UTC"
        case .tooLate: "timestamp after 9999-12-30 23:59:59 UTC"
        case .infinite: "'infinity' is not a point in time"
        }
    }
}
