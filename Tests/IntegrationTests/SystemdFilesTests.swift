import ChimeDaemon
import ChimeTestSupport
import Foundation
import Testing

/// The units and the journal catalog as `make install-systemd` installs them, checked by systemd's own tools.
@Suite struct SystemdFilesTests {
    /// Installs into a fresh DESTDIR with PREFIX=/usr, naming the built chimed as the binary (verify wants it to exist).
    static func installed() throws -> TemporaryDirectory {
        let destination = try TemporaryDirectory(prefix: "chime-install")
        let binDirectory = URL(fileURLWithPath: BinaryLocator.path(of: "chimed")).deletingLastPathComponent().path
        let make = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "make", "-s", "-C", BinaryLocator.packageRoot.path, "install-systemd", "DESTDIR=\(destination.path)",
                "PREFIX=/usr", "BINDIR=\(binDirectory)",
            ])
        #expect(make.status == 0, "make install-systemd: \(make.standardError)")
        return destination
    }

    /// Runs `systemd-analyze ARGUMENTS`. As root, in a mount namespace of its own with a tmpfs on /run: "verify"
    /// starts a manager in test mode, which would otherwise leave a file in the host's /run/systemd.
    static func systemdAnalyze(_ arguments: [String], environment: [String: String] = [:]) throws
        -> ProcessRunner.Output
    {
        if getuid() != 0 {
            return try ProcessRunner.run("/usr/bin/systemd-analyze", arguments, environment: environment)
        }
        return try ProcessRunner.run(
            "/usr/bin/unshare",
            [
                "--mount", "--propagation", "private", "sh", "-c",
                #"mount -t tmpfs tmpfs /run && exec systemd-analyze "$@""#, "sh",
            ] + arguments,
            environment: environment)
    }

    /// The most `systemd-analyze security` may rate a unit (0 = locked down, 10 = no sandbox at all), as
    /// docs/security.md states it for `unit` ("system" or "user"); Tests/E2E/systemd-e2e holds the running unit to
    /// the same bound.
    static func documentedBound(for unit: String) throws -> Double {
        let path = BinaryLocator.packageRoot.appendingPathComponent("docs/security.md").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let marker = "the \(unit) unit above **"
        let start = try #require(text.range(of: marker), "docs/security.md states no bound for the \(unit) unit")
        return try #require(Double(text[start.upperBound...].prefix { $0.isNumber || $0 == "." }))
    }

    /// The overall exposure `systemd-analyze security --offline=true` gives a unit file (0 = locked down, 10 = none).
    static func exposure(of unit: String, userRuntimeDirectory: String? = nil) throws -> Double? {
        let run = try systemdAnalyze(
            ["security", "--offline=true", "--no-pager"] + (userRuntimeDirectory == nil ? [] : ["--user"]) + [unit],
            environment: userRuntimeDirectory.map { ["XDG_RUNTIME_DIR": $0] } ?? [:])
        guard let line = run.standardOutput.split(separator: "\n").last(where: { $0.contains("Overall exposure") }),
            let figure = line.split(separator: " ").first(where: { Double($0) != nil })
        else { return nil }
        return Double(figure)
    }

    @Test func systemUnitVerifiesAndStaysLockedDown() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let unit = root.path + "/usr/lib/systemd/system/chimed.service"
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(text.contains("ExecStart=\(BinaryLocator.path(of: "chimed"))\n"))
        #expect(!text.contains("@BINDIR@"))
        // verify exits 0 even for lines it ignores: any output at all is a finding.
        let verify = try Self.systemdAnalyze(["verify", "--man=no", unit])
        #expect(verify.status == 0)
        #expect(verify.standardOutput + verify.standardError == "")
        let exposure = try #require(try Self.exposure(of: unit))
        let bound = try Self.documentedBound(for: "system")
        #expect(exposure <= bound, "the sandbox got weaker: exposure \(exposure), above \(bound)")
        #expect(text.contains("\nUser=chime\n"))
    }

    /// The user chime that the system unit runs as, as systemd-sysusers creates it from the installed file.
    @Test func sysusersCreatesTheUserChime() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let file = root.path + "/usr/lib/sysusers.d/chime.conf"
        try FileManager.default.createDirectory(atPath: root.path + "/etc", withIntermediateDirectories: true)
        let run = try ProcessRunner.run("/usr/bin/systemd-sysusers", ["--root=\(root.path)", file])
        #expect(run.status == 0, "\(run.standardError)")
        let passwd = try String(contentsOfFile: root.path + "/etc/passwd", encoding: .utf8)
        let fields = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("chime:") }).split(separator: ":")
        let uid = try #require(Int(fields[2]))
        #expect(uid > 0 && uid < 1000, "chime is not a system user: uid \(uid)")
        let group = try String(contentsOfFile: root.path + "/etc/group", encoding: .utf8)
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("chime:x:\(fields[3]):") })
    }

    @Test func userUnitVerifies() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let unit = root.path + "/usr/lib/systemd/user/chimed.service"
        #expect(try String(contentsOfFile: unit, encoding: .utf8).contains(" --user\n"))
        // A user manager, even one that only verifies, needs a runtime directory.
        let runtime = try TemporaryDirectory(prefix: "chime-xdg-runtime")
        defer { runtime.remove() }
        let verify = try Self.systemdAnalyze(
            ["verify", "--user", "--man=no", unit], environment: ["XDG_RUNTIME_DIR": runtime.path])
        #expect(verify.status == 0)
        #expect(verify.standardOutput + verify.standardError == "")
        // The sandbox that leaves a session working (see the unit and docs/security.md).
        let exposure = try #require(try Self.exposure(of: unit, userRuntimeDirectory: runtime.path))
        let bound = try Self.documentedBound(for: "user")
        #expect(exposure <= bound, "the user unit's sandbox got weaker: exposure \(exposure), above \(bound)")
    }

    /// Every kind of event has exactly one catalog entry, and journalctl indexes it under chime's name.
    @Test func catalogExplainsEveryEventKind() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let update = try ProcessRunner.run("/usr/bin/journalctl", ["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0)
        #expect(update.standardError == "")
        let list = try ProcessRunner.run("/usr/bin/journalctl", ["--root=\(root.path)", "--list-catalog"])
        let listed = list.standardOutput.split(separator: "\n").map { String($0.prefix(32)) }
        #expect(listed.sorted() == DaemonEvent.Kind.allCases.map(\.messageID).sorted())
        for kind in DaemonEvent.Kind.allCases {
            let entry = try ProcessRunner.run(
                "/usr/bin/journalctl", ["--root=\(root.path)", "--dump-catalog", kind.messageID])
            #expect(entry.standardOutput.contains("\nDefined-By: chime\n"), "\(kind)")
            #expect(entry.standardOutput.contains("\nSubject: "), "\(kind)")
            #expect(entry.standardOutput.contains("\n\n"), "\(kind) has no explanation")
        }
    }

    /// The D-Bus activation file starts the installed chimed --user, through the user unit where a user manager
    /// runs (the unit is installed beside it).
    @Test func busActivationStartsTheInstalledChimedOrItsUserUnit() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let binDirectory = URL(fileURLWithPath: BinaryLocator.path(of: "chimed")).deletingLastPathComponent().path
        let text = try String(
            contentsOfFile: root.path + "/usr/share/dbus-1/services/org.chime.Notifications1.service", encoding: .utf8)
        #expect(text.contains("\n[D-BUS Service]\nName=org.chime.Notifications1\n"))
        #expect(text.contains("\nExec=\(binDirectory)/chimed --user\n"))
        #expect(text.hasSuffix("\nSystemdService=chimed.service\n"))
        #expect(FileManager.default.fileExists(atPath: root.path + "/usr/lib/systemd/user/chimed.service"))
    }

    @Test func uninstallRemovesEverythingInstalled() throws {
        let root = try Self.installed()
        defer { root.remove() }
        let installed = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter {
            $0.hasSuffix(".service") || $0.hasSuffix(".catalog") || $0.hasSuffix(".conf") || $0.hasSuffix(".xml")
                || $0.hasSuffix(".policy")
        }
        #expect(
            installed.sorted() == [
                "usr/lib/systemd/catalog/chime.catalog", "usr/lib/systemd/system/chimed.service",
                "usr/lib/systemd/user/chimed.service", "usr/lib/sysusers.d/chime.conf", "usr/lib/tmpfiles.d/chime.conf",
                "usr/share/dbus-1/interfaces/org.chime.Notifications1.xml",
                "usr/share/dbus-1/services/org.chime.Notifications1.service",
                "usr/share/dbus-1/system.d/org.chime.Notifications1.conf",
                "usr/share/polkit-1/actions/org.chime.Notifications1.policy",
            ])
        let make = try ProcessRunner.run(
            "/usr/bin/env",
            [
                "make", "-s", "-C", BinaryLocator.packageRoot.path, "uninstall-systemd", "DESTDIR=\(root.path)",
                "PREFIX=/usr",
            ])
        #expect(make.status == 0)
        let left = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { !$0.hasSuffix("/") }
        #expect(
            left.allSatisfy {
                !$0.hasSuffix(".service") && !$0.hasSuffix(".catalog") && !$0.hasSuffix(".conf")
                    && !$0.hasSuffix(".policy")
            },
            "left: \(left)")
    }
}
