/// The bounds on what chime reads from files and generators.
///
/// A real installation stays far below each of them; they are there so that a careless or hostile file or generator
/// (a 10 GB file, a line without an end, a million `At=` in one notification) costs a bounded amount of memory and
/// time and is refused with one error naming it and the bound, while the rest of the schedule loads.
/// `MaxNotifications=`, `GeneratorMaxOutput=` and `GeneratorTimeoutSec=` are set in chimed.conf; these are fixed.
public enum InputLimits {
    /// The most bytes of a notification file, of one of its drop-ins, of chimed.conf and of its drop-ins. Only this
    /// many bytes (and one more) are ever read.
    public static let maximumFileSize = 1 << 20
    /// The most bytes of one line a generator prints (systemd's `LONG_LINE_MAX`, which also bounds a logical line of a
    /// file: `UnitFileParser.maximumLineLength`).
    public static let maximumLineLength = 1 << 20
    /// The most bytes of one value (`Title=`, `Body=`, …), in a file or from a generator.
    public static let maximumValueLength = 64 << 10
    /// The most assignments of one repeatable key (`At=`, `OnCalendar=`, `Action=`, `ExecAction=`, `Info=`,
    /// `Deliver=`) one notification may have, its drop-ins included.
    public static let maximumRepeats = 1024
    /// The most drop-ins applied to one notification, and to chimed.conf.
    public static let maximumDropIns = 256
    /// The largest `Count=` of a notification that also has `OnCalendar=` or `At=`, divided among its `OnCalendar=`
    /// events when it has several: which occurrence is the N-th of a merged sequence is found by stepping through
    /// it from the window's start, and at worst (events that fire together) each step searches every event, so N
    /// times the events bounds the work. (With `Every=` alone the N-th is computed directly, and `Count=` has no
    /// bound.)
    public static let maximumSteppedCount = 10_000
    /// The default of `[Daemon] MinimumInterval=`: the shortest time apart one notification may fire. An
    /// application's request is held to `ApplicationRequests.minimumInterval` as well.
    public static let defaultMinimumInterval = Duration.seconds(1)
    /// The default of `[Daemon] MaxNotifications=`: the most notifications one schedule holds.
    public static let defaultMaximumNotifications = 2_000_000
    /// The largest `MaxNotifications=`: the schedule numbers its entries in 32 bits, and holds at most about twice
    /// the bound between rebuilds.
    public static let largestMaximumNotifications = 100_000_000

    /// `count` with thousands separators, independent of the locale: "2,000,000".
    public static func grouped(_ count: Int) -> String {
        let digits = Array(String(count.magnitude).utf8)
        var result = count < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.unicodeScalars.append(Unicode.Scalar(digit))
        }
        return result
    }

    /// A size as the manual pages give it: "1 MiB", "64 KiB", or "1,000 bytes" when it is no whole number of KiB.
    public static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(grouped(bytes >> 30)) GiB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(grouped(bytes >> 20)) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(grouped(bytes >> 10)) KiB" }
        return "\(grouped(bytes)) bytes"
    }
}

/// A file larger than `InputLimits.maximumFileSize`, found before more than that was read.
public struct FileTooLarge: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's size, when the file system told it (not for a file that grew while being read).
    public var size: Int?
    public var limit: Int

    public init(size: Int?, limit: Int = InputLimits.maximumFileSize) {
        self.size = size
        self.limit = limit
    }

    /// "File is 2,000,000 bytes, more than the 1 MiB a configuration file may have."
    public var description: String {
        let bound = "the \(InputLimits.size(limit)) a configuration file may have"
        guard let size else { return "File is larger than \(bound)." }
        return "File is \(InputLimits.grouped(size)) bytes, more than \(bound)."
    }
}
