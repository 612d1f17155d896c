import ChimeTestSupport
import Foundation
import Glibc
import Testing

/// The real `chimed` with its state directory on a small tmpfs filled to ENOSPC: what it delivers meanwhile is
/// recorded in the runtime directory's overflow file, so a SIGKILL and restart, before space returns or after, do
/// not deliver it again (a `Persistent=yes` one-shot would otherwise come back as missed).
/// Why the file system cannot be filled here, if it cannot.
let fullDiskUnmetRequirement: String? =
    geteuid() == 0 ? nil : "needs root to mount a small tmpfs for the state directory"

@Suite(.serialized, .enabled(if: fullDiskUnmetRequirement == nil, "skipped: \(fullDiskUnmetRequirement ?? "")"))
struct ChimedFullDiskTests {
    @Test func whatWasDeliveredWhileTheStateDirectoryWasFullIsNotDeliveredAgainAfterARestart() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-full-disk")
        defer { directory.remove() }
        let state = directory.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let mount = try ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", state])
        try #require(mount.status == 0, "mount: \(mount.standardError)")
        defer { _ = try? ProcessRunner.run("/bin/umount", ["-l", state]) }
        let arguments = [
            "--config-dir=\(directory.path)/config", "--runtime-dir=\(directory.path)/run", "--state-dir=\(state)",
            "--deliver=stdout",
        ]
        let notify = try NotifySocket(directory: directory.path)
        func start() throws -> RunningProcess {
            let process = try RunningProcess(
                BinaryLocator.path(of: "chimed"), arguments, environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC"])
            let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20).last?.contains("READY=1")
            try #require(ready == true, "chimed did not start: \(process.standardError)")
            return process
        }
        // Forty at once: more records than the free end of the journal's last page holds (a file on tmpfs takes bytes
        // into a page it has without asking for a new one, full or not).
        func oneShots(_ name: String, inSeconds seconds: Int) throws -> [String] {
            let due = Int(Date().timeIntervalSince1970.rounded(.up)) + seconds
            let ids = (10..<50).map { "\(name)\($0)" }
            for id in ids {
                try directory.write(
                    "config/\(id).notification", "[Notification]\nTitle=\(id)\n[Trigger]\nAt=@\(due)\nPersistent=yes\n")
            }
            return ids
        }
        func delivered(_ process: RunningProcess) -> [String] {
            process.standardOutput.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            }
        }
        // How many deliveries of `ids` chimed recorded as finished, in the journal or the overflow file: a delivery
        // killed before that may come again, as any delivery in flight.
        func finished(_ ids: [String]) -> Int {
            let files = [state + "/occurrences.log", directory.path + "/run/state-overflow.log"]
            let text = files.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
            return ids.filter { text.contains("{\"finished\":\"\($0)\"") }.count
        }
        // Fills the file system to ENOSPC with a file of ballast.
        let ballast = state + "/ballast"
        func fill() {
            let descriptor = open(ballast, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            let block = [UInt8](repeating: 0, count: 4096)
            while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            // Down to the last byte, so that the journal cannot take a record.
            while write(descriptor, block, 1) > 0 {}
            close(descriptor)
        }

        let before = try oneShots("before", inSeconds: 3)
        let first = try start()
        fill()
        #expect(waitFor({ delivered(first).sorted() == before }, timeout: 20), "\(first.standardError)")
        // The journal took what its last page held, and the overflow file the rest.
        #expect(waitFor({ finished(before) == before.count }, timeout: 20))
        #expect(FileManager.default.fileExists(atPath: directory.path + "/run/state-overflow.log"))
        first.signal(SIGKILL)
        first.wait(timeout: 10)

        // Started again with the disk still full: what was delivered is not delivered again.
        let meanwhile = try oneShots("meanwhile", inSeconds: 3)
        let second = try start()
        #expect(waitFor({ delivered(second).sorted() == meanwhile }, timeout: 20), "\(second.standardError)")
        #expect(waitFor({ finished(meanwhile) == meanwhile.count }, timeout: 20))
        // Space is back, and chimed is killed before its next try at writing the state.
        unlink(ballast)
        second.signal(SIGKILL)
        second.wait(timeout: 10)

        let third = try start()
        defer { third.wait(timeout: 0) }
        usleep(2_000_000)
        third.signal(SIGTERM)
        #expect(third.wait(timeout: 10) == 0)
        #expect((delivered(first) + delivered(second) + delivered(third)).sorted() == before + meanwhile)
        #expect(!third.standardError.contains("delivering it again"), "\(third.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/run/state-overflow.log"))
    }
}
