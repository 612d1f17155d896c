import Foundation
import Glibc

/// A systemd-journald of a test's own: started in a private mount namespace with a tmpfs on `/run/systemd`, so
/// that `sd_journal_sendv` and stream connections in that namespace reach it, storing into a temporary directory
/// that is read back with `journalctl --directory`. Nothing of the host's journal is touched.
public enum PrivateJournal {
    /// What the script printed, and every entry of the journal once journald has stopped.
    public struct Result: Sendable {
        public var output: ProcessRunner.Output
        public var entries: [JournalEntry]
    }

    static let journald = "/lib/systemd/systemd-journald"
    static let unshare = "/usr/bin/unshare"
    static let journalctl = "/usr/bin/journalctl"

    /// Why a private journal cannot run here, or `nil` when it can: it needs root (for the mount namespace) and
    /// the programs `unshare`, `systemd-journald` and `journalctl`.
    public static var unavailableReason: String? {
        if geteuid() != 0 { return "needs root to make a mount namespace for a private journald" }
        for program in [unshare, journald, journalctl] where !FileManager.default.isExecutableFile(atPath: program) {
            return "needs \(program)"
        }
        return nil
    }

    /// Runs `script` with `sh` (`$1`… are `arguments`) in a mount namespace where a journald of its own is
    /// listening; after the script, waits until journald has written everything and stops it.
    ///
    /// journald runs with `Storage=volatile` (so that the host's `/var/log/journal` is never written), without
    /// reading the kernel log or forwarding anywhere, and with no rate limit.
    public static func run(_ script: String, arguments: [String] = []) throws -> Result {
        let directory = try TemporaryDirectory(prefix: "chime-journal")
        defer { directory.remove() }
        return try run(
            script, arguments: arguments, keepingJournalIn: directory.url.appendingPathComponent("store").path)
    }

    /// As `run(_:arguments:)`, but leaves the journal in `store` (created if missing) for the caller to read: the
    /// journal files are in `journalDirectory(in: store)`, for `sd_journal_open_directory` or
    /// `journalctl --directory`.
    public static func run(_ script: String, arguments: [String] = [], keepingJournalIn store: String) throws -> Result
    {
        let directory = try TemporaryDirectory(prefix: "chime-journal")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let userScript = try directory.write("script.sh", script)
        let wrapper = try directory.write("journal.sh", wrapperScript)
        let output = try ProcessRunner.run(
            unshare, ["--mount", "--propagation", "private", "/bin/sh", wrapper, store, userScript] + arguments)
        if output.status == startFailure {
            throw Failure(description: "systemd-journald did not start:\n\(output.standardError)")
        }
        let read = try ProcessRunner.run(
            journalctl, ["--directory=\(journalDirectory(in: store))", "--output=json", "--no-pager"])
        guard read.status == 0 else {
            throw Failure(description: "journalctl failed (\(read.status)):\n\(read.standardError)")
        }
        let entries = try read.standardOutput.split(separator: "\n").map { try JournalEntry(json: Data($0.utf8)) }
        return Result(output: output, entries: entries)
    }

    /// Where journald stored the journal of a run that kept it in `store`: it writes a volatile journal to
    /// `/run/log/journal/MACHINE-ID/`, and `store` is bound over `/run/log`.
    public static func journalDirectory(in store: String) -> String {
        store + "/journal"
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let startFailure: Int32 = 70

    // $1: the store, bound over /run/log where a volatile journal lives; $2: the script; the rest its arguments.
    static let wrapperScript = """
        set -eu
        store=$1
        script=$2
        shift 2
        mount -t tmpfs -o mode=0755 tmpfs /run/systemd
        mount --bind "$store" /run/log
        mkdir /run/systemd/journald.conf.d
        cat >/run/systemd/journald.conf.d/zz-chime-test.conf <<'EOF'
        [Journal]
        Storage=volatile
        ReadKMsg=no
        ForwardToSyslog=no
        ForwardToKMsg=no
        ForwardToConsole=no
        ForwardToWall=no
        RateLimitBurst=0
        EOF
        \(journald) </dev/null >"$store/journald.log" 2>&1 &
        journald=$!
        # journald binds its sockets before its event loop runs; what is sent from then on is queued for it.
        tries=0
        while [ ! -S /run/systemd/journal/socket ] && [ $tries -lt 500 ] && kill -0 $journald 2>/dev/null; do
            sleep 0.01
            tries=$((tries + 1))
        done
        if [ ! -S /run/systemd/journal/socket ]; then
            cat "$store/journald.log" >&2
            kill $journald 2>/dev/null || true
            exit \(startFailure)
        fi
        status=0
        sh "$script" "$@" || status=$?
        # Returns once journald has processed everything queued before it, and written it out.
        \(journalctl) --sync
        kill -TERM $journald
        wait $journald || true
        exit $status
        """
}

/// One journal entry as `journalctl --output=json` prints it: every field's values as text (a field may repeat;
/// journalctl prints a value that is not printable UTF-8 as an array of bytes, which is decoded here).
public struct JournalEntry: Sendable {
    public var fields: [String: [String]]

    init(json: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw PrivateJournal.Failure(description: "not a journal entry: \(String(decoding: json, as: UTF8.self))")
        }
        fields = object.mapValues { value in
            if let bytes = value as? [Int] { return [Self.text(bytes)] }
            if let values = value as? [Any] { return values.map(Self.text) }
            return [Self.text(value)]
        }
    }

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let bytes = value as? [Int] {
            return String(decoding: bytes.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
        }
        return "\(value)"
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        fields[name]?.first
    }

    /// The fields that the sender chose: all but journald's trusted `_…` and address `__…` fields.
    public var senderFields: [String: [String]] {
        fields.filter { !$0.key.hasPrefix("_") }
    }
}
