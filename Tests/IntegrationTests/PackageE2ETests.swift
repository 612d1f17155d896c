import ChimeTestSupport
import Foundation
import Testing

/// The Debian package under a real systemd: Tests/E2E/package-e2e installs it with apt-get in a container, has the
/// packaged chimed deliver, and purges it (lintian checks it behind the normal pass: tools/lint-deb).
@Suite struct PackageE2ETests {
    static let harness = BinaryLocator.packageRoot.appendingPathComponent("Tests/E2E/package-e2e").path
    /// Built by `make deb` (part of `make test`).
    static var package: String? {
        let directory = BinaryLocator.packageRoot.appendingPathComponent(".build/deb")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("chime_") && $0.hasSuffix(".deb") }.sorted().last.map {
            directory.appendingPathComponent($0).path
        }
    }

    @Test(
        "the package installs, runs chimed as a service that delivers, and purges without a trace",
        .enabled(if: SystemdE2ETests.unmetRequirement == nil, "skipped: \(SystemdE2ETests.unmetRequirement ?? "")"))
    func packageInstallsRunsAndPurges() throws {
        let package = try #require(Self.package, "no .build/deb/chime_*.deb: build it with make deb")
        // The harness tears its container down on SIGTERM; timeout sends one if it ever hangs.
        let run = try ProcessRunner.run("/usr/bin/timeout", ["120", Self.harness, package])
        let report = run.standardOutput + run.standardError
        #expect(run.status == 0, "package-e2e exited \(run.status):\n\(report)")
        if run.status == 0 { print(report, terminator: "") }
    }
}
