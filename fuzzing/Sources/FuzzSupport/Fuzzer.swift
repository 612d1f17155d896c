import CLibFuzzer
import ChimeCore
import ChimePlatform
import ChimeTestSupport
import Foundation

/// The driver of one fuzz target: hands every input libFuzzer makes to the target's test, and turns a broken
/// promise of the code under test into a crash that libFuzzer records.
public enum Fuzzer {
    /// The test of this process; libFuzzer calls back through a C function, which cannot capture it.
    nonisolated(unsafe) private static var test: ((UnsafeRawBufferPointer) -> Void)?

    /// Runs libFuzzer with the command line's options (`-max_total_time=`, a corpus directory, ...), calling `test`
    /// once per input, and exits with libFuzzer's status: 0, or non-zero after a crash, a timeout or a leak.
    public static func run(_ test: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
        Self.test = test
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            Fuzzer.runTimed(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
        exit(status)
    }

    /// How long one input may take before it counts as a hang: `CHIME_FUZZ_SLOW_MS`, 100 ms by default.
    /// libFuzzer's own `-timeout=` counts in whole seconds.
    static let slowLimit: Duration = .milliseconds(
        Int(ProcessInfo.processInfo.environment["CHIME_FUZZ_SLOW_MS"] ?? "") ?? 100)
    /// Where a slow input is saved, as `slow-HASH`: `CHIME_FUZZ_SLOW_DIR`, or the current directory.
    static let slowDirectory = ProcessInfo.processInfo.environment["CHIME_FUZZ_SLOW_DIR"] ?? "."

    /// Runs the test on `input`; an input over `slowLimit` is run once more, so that a moment without the CPU does
    /// not count, and saved if it is slow again.
    private static func runTimed(_ input: UnsafeRawBufferPointer) {
        let clock = ContinuousClock()
        let first = clock.measure { test?(input) }
        guard first > slowLimit else { return }
        let second = clock.measure { test?(input) }
        guard second > slowLimit else { return }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in input { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let path = "\(slowDirectory)/slow-\(String(hash, radix: 16))"
        let saved = FileManager.default.createFile(atPath: path, contents: Data(input)) ? path : "not saved"
        let times = "\(milliseconds(first)) ms, then \(milliseconds(second)) ms"
        let report = "==\(getpid())== SLOW INPUT: \(times): \(saved)\n"
        FileHandle.standardError.write(Data(report.utf8))
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Stops with `message` when `condition` is false: libFuzzer saves the input as a crash.
    public static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError(message()) }
    }

    /// The input as text, as a file's or a generator's bytes would reach the parsers after decoding.
    public static func text(_ input: UnsafeRawBufferPointer) -> String {
        String(decoding: input, as: UTF8.self)
    }

    /// The input cut at each ASCII record separator (0x1E) into at most `limit` parts, for targets that read more
    /// than one file: a byte to which neither the unit-file syntax nor JSON gives a meaning of its own.
    public static func parts(_ input: UnsafeRawBufferPointer, limit: Int) -> [Data] {
        input.split(separator: 0x1E, maxSplits: limit - 1, omittingEmptySubsequences: false).map { Data($0) }
    }

    /// Zones with and without DST for the targets to read times in (CalendarSamples.zoneNames: UTC, zones with
    /// changes of an hour and of half an hour, a fractional offset), from the system's tzdata.
    public static let zones: [ZoneRules] = CalendarSamples.zoneNames.map { name in
        do {
            return try ZoneDatabase.system.rules(named: name)
        } catch {
            fatalError("\(name) is not installed: the fuzz targets need tzdata (\(error))")
        }
    }

    /// One of `zones`, chosen by `selector` (a length, a byte) so that the fuzzer can steer it.
    public static func zone(_ selector: Int) -> ZoneRules {
        zones[selector % zones.count]
    }
}
