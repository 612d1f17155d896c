import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

/// `InputLimits` where ChimeCore enforces them: each exceeded bound is one error naming it, the notification or line
/// is skipped, and a value just within the bound loads.
@Suite struct InputBoundsTests {
    static let path = "/etc/chime/generators.d/list"
    let loader = NotificationLoader(systemZone: .utc, zones: .system)

    @Test(arguments: [
        (0, "0"), (999, "999"), (1000, "1,000"), (65_536, "65,536"), (2_000_000, "2,000,000"),
        (10_737_418_240, "10,737,418,240"), (-1234, "-1,234"),
    ])
    func groupsThousands(_ count: Int, _ text: String) {
        #expect(InputLimits.grouped(count) == text)
    }

    @Test(arguments: [(1 << 20, "1 MiB"), (64 << 10, "64 KiB"), (4 << 30, "4 GiB"), (1000, "1,000 bytes")])
    func namesSizes(_ bytes: Int, _ text: String) {
        #expect(InputLimits.size(bytes) == text)
    }

    @Test func aGeneratorLineAtTheBoundIsReadAndOneAboveIsRefusedUnread() {
        let prefix = #"{"Id":"a","Title":"A","At":"2030-01-01","Body":""#
        let fits =
            prefix + String(repeating: " ", count: InputLimits.maximumLineLength - prefix.utf8.count - 2) + #""}"#
        // Not even valid UTF-8: the length alone decides.
        let long = [UInt8](repeating: 0xFF, count: InputLimits.maximumLineLength + 1)
        let output = Array(fits.utf8) + [0x0A] + long + Array("\n".utf8)
        let results = GeneratorOutput.validated(parsing: output, path: Self.path, by: loader)
        #expect(results.map(\.line) == [1, 2])
        #expect(results[0].result.notification?.id == "a")
        #expect(
            results[1].result.diagnostics.map(\.description) == [
                "\(Self.path):2: Line is 1,048,577 bytes long, more than the 1 MiB a generator's line may have."
            ])
    }

    @Test func aValueAtTheBoundLoadsAndOneByteMoreIsRefused() {
        let file = "[Notification]\nTitle=T\n[Trigger]\nAt=2030-01-01\n[Notification]\nInfo=k="
        let fits = UnitFile(
            parsing: file + String(repeating: "v", count: InputLimits.maximumValueLength - 2) + "\n", path: "f")
        #expect(loader.load(fits, id: "f", path: "f").diagnostics == [])
        let long = UnitFile(
            parsing: file + String(repeating: "v", count: InputLimits.maximumValueLength - 1) + "\n", path: "f")
        let result = loader.load(long, id: "f", path: "f")
        #expect(
            result.diagnostics.map(\.description) == [
                "f:6:6: Info= is 65,537 bytes long, more than the 64 KiB a value may have."
            ])
        #expect(result.notification == nil)
    }

    @Test(arguments: [
        "At=2030-01-01", "OnCalendar=daily", "Action=k:L", "ExecAction=k:/bin/true", "Info=k=v", "Deliver=x",
    ])
    func aRepeatedKeyIsBoundedAndOnlyTheBoundIsReported(_ assignment: String) {
        let key = String(assignment.prefix { $0 != "=" })
        let section = ["At", "OnCalendar"].contains(key) ? "Trigger" : "Notification"
        let text = { (count: Int) in
            "[Notification]\nTitle=T\n[Trigger]\nEvery=1h\n[\(section)]\n"
                + String(repeating: assignment + "\n", count: count)
        }
        let fits = loader.load(UnitFile(parsing: text(InputLimits.maximumRepeats), path: "f"), id: "f", path: "f")
        #expect(!fits.hasErrors, "\(fits.diagnostics)")
        let many = loader.load(UnitFile(parsing: text(4 * InputLimits.maximumRepeats), path: "f"), id: "f", path: "f")
        #expect(
            many.diagnostics.map(\.description) == [
                "f:1030:1: More than 1,024 \(key)= assignments, the most one notification may have."
            ])
        #expect(many.notification == nil)
    }

    @Test func theDefaultProbeReadsNoMoreThanTheBound() throws {
        let root = try TemporaryDirectory(prefix: "chime-bounds")
        defer { root.remove() }
        let big = try root.write("big.notification", "")
        #expect(truncate(big, 5 << 20) == 0)
        try root.write("ok.notification", "[Notification]\nTitle=T\n[Trigger]\nEvery=1h\n")
        let search = NotificationSearch(searching: [root.path], probe: PosixFileKindProbe())
        #expect(search.files.map(\.id) == ["big", "ok"])
        guard case .loaded(let unit) = search.files[0].content else {
            Issue.record("big is masked")
            return
        }
        #expect(
            unit.diagnostics.map(\.description) == [
                "\(big): File is 5,242,880 bytes, more than the 1 MiB a configuration file may have."
            ])
    }
}
