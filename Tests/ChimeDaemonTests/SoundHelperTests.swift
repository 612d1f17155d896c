import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// chimed's side of the sound helper, against stand-in helpers written in sh: the answers it reads, a helper that
/// ends on its own (what it had not read goes to the next), one that keeps ending (started twice, not for ever), and
/// one that crashes.
struct SoundHelperTests {
    /// A helper script in `directory`, and a `SoundHelper` running it.
    static func helper(_ directory: TemporaryDirectory, _ script: String) throws -> SoundHelper {
        let path = try directory.write("helper", "#!/bin/sh\n" + script, permissions: 0o755)
        return SoundHelper(path: path, scratchDirectory: directory.path, environment: [:])
    }

    /// Plays `count` requests on `helper` and waits for their endings.
    static func endings(_ helper: SoundHelper, count: Int = 1) async -> [SoundEnding] {
        let endings = Locked<[SoundEnding]>([])
        for _ in 0..<count {
            _ = helper.play(SoundRequest(sound: "bell")) { ending in endings.withLock { $0.append(ending) } }
        }
        _ = await eventually(timeout: 10) { endings.withLock { $0.count == count } }
        return endings.withLock { $0 }
    }

    @Test func theEndingsTheHelperWritesReachTheirPlaybacks() async throws {
        let directory = try TemporaryDirectory(prefix: "sound-helper")
        defer { directory.remove() }
        // Answers each command with its token: played for "bell".
        let helper = try Self.helper(
            directory,
            """
            while read -r line; do
              token=$(printf '%s' "$line" | sed 's/.*"token":\\([0-9]*\\).*/\\1/')
              printf '{"token":%s,"outcome":"played"}\\n' "$token"
            done
            """)
        #expect(await Self.endings(helper, count: 3) == [.played, .played, .played])
    }

    @Test func whatAHelperEndingOnItsOwnDidNotReadGoesToTheNextButNotForEver() async throws {
        let directory = try TemporaryDirectory(prefix: "sound-helper")
        defer { directory.remove() }
        // Reads nothing and exits 0, as an idle helper does; counts its starts.
        let starts = directory.path + "/starts"
        let helper = try Self.helper(directory, "echo started >> \(starts)\nexit 0\n")
        let endings = await Self.endings(helper)
        guard case .failed(let why) = endings.first else {
            Issue.record("\(endings)")
            return
        }
        #expect(why.hasPrefix("the sound player "), "\(why)")
        // Sent again to a second run, then given up: not started for ever.
        try await Task.sleep(for: .milliseconds(300))
        let count = try String(contentsOfFile: starts, encoding: .utf8).split(separator: "\n").count
        #expect((1...2).contains(count), "\(count) starts")
    }

    @Test func aCrashedHelperFailsWhatItHadWithItsSignalAndTheNextPlayStartsAnother() async throws {
        let directory = try TemporaryDirectory(prefix: "sound-helper")
        defer { directory.remove() }
        let marker = directory.path + "/started-once"
        // The first run crashes; the second answers.
        let helper = try Self.helper(
            directory,
            """
            if [ ! -e \(marker) ]; then touch \(marker); echo 'decoder: bad frame' >&2; kill -SEGV $$; fi
            while read -r line; do
              token=$(printf '%s' "$line" | sed 's/.*"token":\\([0-9]*\\).*/\\1/')
              printf '{"token":%s,"outcome":"failed","reason":"no such sound"}\\n' "$token"
            done
            """)
        let first = await Self.endings(helper)
        #expect(first == [.failed("the sound player was killed by signal 11 (Segmentation fault): decoder: bad frame")])
        #expect(await Self.endings(helper) == [.failed("no such sound")])
    }
}
