import ChimeTestSupport
import Foundation
import Testing

/// chimed under a real systemd: Tests/E2E/systemd-e2e boots one in a container and drives the installed unit.
@Suite struct SystemdE2ETests {
    static let harness = BinaryLocator.packageRoot.appendingPathComponent("Tests/E2E/systemd-e2e").path
    /// Built by `make e2e-binary` (part of `make test`): the container has no Swift runtime.
    static let chimed = BinaryLocator.packageRoot.appendingPathComponent(".build/release/chimed").path
    static let chimectl = BinaryLocator.packageRoot.appendingPathComponent(".build/release/chimectl").path

    /// Why the test cannot run here, if it cannot: booting a container needs root and systemd-nspawn.
    static var unmetRequirement: String? {
        if getuid() != 0 { return "needs root to boot a container" }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let nspawn = (path.split(separator: ":") + ["/usr/bin"]).map { "\($0)/systemd-nspawn" }
        if !nspawn.contains(where: FileManager.default.isExecutableFile(atPath:)) {
            return "needs systemd-nspawn (apt-get install systemd-container)"
        }
        return nil
    }

    @Test(
        "the system unit as the user chime and the user unit in a user manager, under systemd",
        .enabled(if: unmetRequirement == nil, "skipped: \(unmetRequirement ?? "")"))
    func chimedRunsAsANotifyServiceUnderSystemd() throws {
        for binary in [Self.chimed, Self.chimectl] {
            try #require(
                FileManager.default.isExecutableFile(atPath: binary),
                "no \(binary): build it with make e2e-binary (swift build -c release --static-swift-stdlib)")
        }
        // The harness tears its container down on SIGTERM; timeout sends one if it ever hangs.
        let run = try ProcessRunner.run("/usr/bin/timeout", ["100", Self.harness, Self.chimed, Self.chimectl])
        let report = run.standardOutput + run.standardError
        #expect(run.status == 0, "systemd-e2e exited \(run.status):\n\(report)")
        if run.status == 0 { print(report, terminator: "") }
    }
}
