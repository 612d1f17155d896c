import ChimeTestSupport
import Foundation
import Glibc
import Testing

/// The `command` backend with the real `chimed`: `[Command]` sections of chimed.conf run recording, failing and
/// hanging scripts for notifications (files and a generator's lines) whose content is hostile to any shell.
@Suite(.serialized) struct ChimedCommandTests {
    let chimed = BinaryLocator.path(of: "chimed")

    /// Everything a shell would act on, and what else a value can hold: quotes, command substitution, backticks,
    /// `;`, `&&`, a literal backslash-n, emoji, a tab, ESC and another control character.
    static func hostile(_ marker: String) -> String {
        "'single' \"double\" $(touch \(marker)) `touch \(marker)`; touch \(marker) && \\n 🎉\t\u{1B}[31m\u{01} end"
    }

    /// The NUL-separated `NAME=value` pairs `env -0` wrote.
    static func environment(_ path: String) throws -> [String: String] {
        let pairs = try Data(contentsOf: URL(fileURLWithPath: path)).split(separator: 0).map {
            String(decoding: $0, as: UTF8.self)
        }
        return Dictionary(
            pairs.map { ($0.prefix { $0 != "=" }.description, String($0.drop { $0 != "=" }.dropFirst())) }
        ) {
            first, _ in first
        }
    }

    @Test func contentArrivesIntactFailuresAreLoggedAndAHangingCommandIsKilled() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-command")
        defer { directory.remove() }
        let root = directory.path
        let marker = root + "/pwned"
        let out = root + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let record = try directory.write(
            "bin/record",
            """
            #!/bin/sh
            cat > "$OUT/$CHIME_ID.stdin"
            env -0 > "$OUT/$CHIME_ID.env"
            for argument in "$@"; do printf '%s\\n' "$argument"; done > "$OUT/$CHIME_ID.argv"
            """, permissions: 0o755)
        let fail = try directory.write(
            "bin/fail", "#!/bin/sh\necho 'connecting to the pager' >&2\necho 'no route to host' >&2\nexit 3\n",
            permissions: 0o755)
        let hang = try directory.write(
            "bin/hang",
            "#!/bin/sh\nsleep 1000 &\n(sleep 1000 &)\necho $$ > \"$OUT/hang.pgid\"\necho 'still waiting' >&2\nwait\n",
            permissions: 0o755)
        // Exec= is split into words like ExecAction=: the quoted $(…) is one literal argument.
        try directory.write(
            "config/chimed.conf",
            """
            [Daemon]
            Deliver=journal
            [Command]
            Exec=\(record) --literal "$(touch \(marker))"
            [Command]
            Name=fail
            Exec=\(fail)
            [Command]
            Name=hang
            Exec=\(hang)
            TimeoutSec=1s
            """)
        let fireAt = Int(Date().timeIntervalSince1970.rounded(.up)) + 5
        let text = Self.hostile(marker)
        func file(_ deliver: String, _ body: String = "Body") -> String {
            "[Notification]\nTitle=\(text)\nBody=\(body)\nInfo=note=\(text)\nDeliver=\(deliver)\n[Trigger]\nAt=@\(fireAt)\n"
        }
        try directory.write("config/hostile.notification", file("command", text))
        try directory.write("config/failing.notification", file("fail"))
        try directory.write("config/hanging.notification", file("hang"))
        // A byte that is not UTF-8 makes the whole file invalid: refused when loaded, never delivered.
        let invalid =
            Data("[Notification]\nTitle=Fine\nBody=".utf8) + [0xC3, 0x28]
            + Data("\nDeliver=command\n[Trigger]\nAt=@\(fireAt)\n".utf8)
        try invalid.write(to: directory.url.appendingPathComponent("config/invalid.notification"))
        // A generator's JSON escapes can carry any character but a line break or NUL, which values cannot hold.
        let json =
            #"{"Id":"generated","Title":"quote \" backslash \\ $(touch \#(marker)) \u0001 \u001b[0m \u2028 🎉","#
            + #""Deliver":"command","At":"@\#(fireAt)"}"#
        let broken = #"{"Id":"broken","Title":"line\nbreak","Deliver":"command","At":"@\#(fireAt)"}"#
        try directory.write(
            "config/generators.d/lines", "#!/bin/sh\ncat <<'EOF'\n\(json)\n\(broken)\nEOF\n", permissions: 0o755)

        let notify = try NotifySocket(directory: root)
        let process = try RunningProcess(
            chimed,
            ["--config-dir=\(root)/config", "--runtime-dir=\(root)/run", "--state-dir=\(root)/state"],
            environment: ["NOTIFY_SOCKET": notify.path, "TZ": "UTC", "OUT": out])
        defer { process.signal(SIGKILL) }
        let ready = notify.receive(until: { $0.contains("READY=1") }, timeout: 20)
        #expect(ready.last?.contains("STATUS=4 scheduled") == true, "\(ready) \(process.standardError)")

        let logged = { process.standardError }
        #expect(
            waitFor(
                {
                    FileManager.default.fileExists(atPath: out + "/generated.argv")
                        && FileManager.default.fileExists(atPath: out + "/hostile.argv")
                        && logged().contains("hanging: delivery to hang failed")
                        && logged().contains("failing: delivery to fail failed")
                }, timeout: 30), "\(logged())")

        // The file's values, the generator's and the arguments, byte for byte; nothing ran.
        let hostile = try Self.environment(out + "/hostile.env")
        #expect(hostile["CHIME_TITLE"] == text)
        #expect(hostile["CHIME_BODY"] == text)
        #expect(hostile["CHIME_INFO_NOTE"] == text)
        #expect(hostile["CHIME_BACKEND"] == "command")
        #expect(hostile["CHIME_FIRE_TIME"] == Self.iso(fireAt))
        #expect(hostile["OUT"] == out)
        #expect(hostile["NOTIFY_SOCKET"] == nil)
        let stdin = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: out + "/hostile.stdin")))
        let object = try #require(stdin as? [String: Any])
        #expect(object["title"] as? String == text)
        #expect(object["body"] as? String == text)
        #expect((object["info"] as? [String: String]) == ["note": text])
        #expect(object["backend"] as? String == "command")
        #expect(object["fire_time"] as? String == Self.iso(fireAt))
        let argv = try String(contentsOfFile: out + "/hostile.argv", encoding: .utf8)
        #expect(argv == "--literal\n$(touch \(marker))\n")

        let generated = try Self.environment(out + "/generated.env")
        let title = "quote \" backslash \\ $(touch \(marker)) \u{01} \u{1B}[0m \u{2028} 🎉"
        #expect(generated["CHIME_TITLE"] == title)
        let generatedLine = try Data(contentsOf: URL(fileURLWithPath: out + "/generated.stdin"))
        let generatedObject = try JSONSerialization.jsonObject(with: generatedLine) as? [String: Any]
        #expect(generatedObject?["title"] as? String == title)
        #expect(!FileManager.default.fileExists(atPath: marker))

        // Refused when loaded, and so never delivered.
        #expect(logged().contains("invalid.notification:3:6: Line is not valid UTF-8."))
        #expect(
            logged().contains(
                "generators.d/lines:2:25: \"Title\" cannot hold a line break or NUL: the values of a notification are "
                    + "single lines."))
        #expect(!FileManager.default.fileExists(atPath: out + "/invalid.env"))
        #expect(!FileManager.default.fileExists(atPath: out + "/broken.env"))

        #expect(
            logged().contains(
                "failing: delivery to fail failed: \(fail) exited with status 3 "
                    + "(stderr: \"connecting to the pager / no route to host\")"))
        #expect(
            logged().contains(
                "hanging: delivery to hang failed: \(hang) did not finish within 1s; killed it and everything it "
                    + "started (stderr: \"still waiting\")"))
        let pgid = try #require(
            pid_t(try String(contentsOfFile: out + "/hang.pgid", encoding: .utf8).trimmingCharacters(in: .newlines)))
        #expect(waitFor({ kill(-pgid, 0) == -1 && errno == ESRCH }, timeout: 5), "group \(pgid) survived")

        process.signal(SIGTERM)
        #expect(process.wait(timeout: 10) == 0)
    }

    static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return text.replacingOccurrences(of: "Z", with: ".000000Z")
    }
}
