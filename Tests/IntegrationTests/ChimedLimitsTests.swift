import ChimeTestSupport
import Foundation
import Testing

/// The real `chimed --check` with input beyond chime's bounds: each is one error naming the source and the bound,
/// and the rest of the schedule is listed.
@Suite struct ChimedLimitsTests {
    let chimed = BinaryLocator.path(of: "chimed")

    @Test func eachExceededBoundIsOneErrorAndTheRestLoads() throws {
        let directory = try TemporaryDirectory(prefix: "chimed-limits")
        defer { directory.remove() }
        try directory.write("chimed.conf", "[Daemon]\nMaxNotifications=3\n")
        try directory.write("tick.notification", "[Notification]\nTitle=Tick\n[Trigger]\nOnCalendar=hourly\n")
        let big = try directory.write("big.notification", "")
        #expect(truncate(big, 10 << 30) == 0)
        let fifo = directory.path + "/fifo.notification"
        #expect(mkfifo(fifo, 0o644) == 0)
        let generator = try directory.write(
            "generators.d/list",
            """
            #!/bin/sh
            echo '{"Id":"first","Title":"First","OnCalendar":"daily"}'
            head -c 2097152 /dev/zero | tr '\\0' x; echo
            echo '{"Id":"second","Title":"Second","OnCalendar":"daily"}'
            echo '{"Id":"third","Title":"Third","OnCalendar":"daily"}'

            """,
            permissions: 0o755)
        let output = try ProcessRunner.run(
            chimed, ["--check", "--config-dir=\(directory.path)"], environment: ["TZ": "Europe/Berlin"])
        #expect(output.status == 1)
        #expect(
            output.standardError.split(separator: "\n").map(String.init) == [
                "\(big): File is 10,737,418,240 bytes, more than the 1 MiB a configuration file may have.",
                "\(fifo): Not a regular file, ignoring.",
                "\(generator):2: Line is 2,097,152 bytes long, more than the 1 MiB a generator's line may have.",
                "\(generator):4: Notification 'third' is beyond the 3 the schedule may hold (MaxNotifications=); "
                    + "ignoring it.",
            ])
        #expect(output.standardOutput.contains("3 notification(s) loaded, 3 scheduled, 3 error(s), 1 warning(s)."))
        for id in ["tick", "first", "second"] {
            #expect(output.standardOutput.contains("  \(id): "), "\(id)")
        }
    }
}
