import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeControl

/// `chimectl completion bash|zsh|fish`, each script run by its real shell: what Tab offers after the command's
/// name, its options and the values of those that take few.
@Suite struct CompletionTests {
    static let zshPath = "/usr/bin/zsh"
    static let fishPath = "/usr/bin/fish"

    static func script(_ shell: String, in directory: TemporaryDirectory) throws -> String {
        let run = ChimectlTests.run(["completion", shell])
        #expect(run.status == .success, "\(run.errors)")
        return try directory.write("chimectl.\(shell)", run.output)
    }

    @Test func theDescriptionHasEveryCommandAndMostOptionsSayWhatTheyDo() {
        let description = CompletionDescription.chimectl
        #expect(description.commands.map(\.name) == Chimectl.commands.map { $0.name })
        let add = description.commands.first { $0.name == "add" }
        #expect(add?.options.first { $0.name == "title" }?.description == "the summary (required)")
        #expect(add?.options.first { $0.name == "urgency" }?.values == ["low", "normal", "critical"])
        #expect(
            add?.options.first { $0.name == "state-dir" }?.description
                == "the instance's state directory, where requests are kept")
        let options = description.commands.flatMap(\.options)
        let described = options.filter { !$0.description.isEmpty }
        #expect(described.count * 10 >= options.count * 9, "\(options.filter { $0.description.isEmpty }.map(\.name))")
    }

    @Test func bash() throws {
        let directory = try TemporaryDirectory(prefix: "chimectl-bash")
        defer { directory.remove() }
        let script = try Self.script("bash", in: directory)
        #expect(try ProcessRunner.run("/bin/bash", ["-n", script]).status == 0)
        func complete(_ words: String) throws -> String {
            let count = words.split(separator: " ", omittingEmptySubsequences: false).count
            return try ProcessRunner.run(
                "/bin/bash",
                [
                    "-c",
                    "source \(script); COMP_WORDS=(\(words)); COMP_CWORD=\(count - 1); _chimectl; echo ${COMPREPLY[@]}",
                ]
            ).standardOutput
        }
        #expect(try complete("chimectl calendar --it") == "--iterations=\n")
        #expect(try complete("chimectl add --urgency = cr") == "critical\n")
        #expect(try complete("chimectl quiet ''") == "on off status\n")
        #expect(try complete("chimectl com") == "completion\n")
        #expect(try complete("chimectl --user li") == "list\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zshPath), "skipped: needs zsh"))
    func zsh() throws {
        let directory = try TemporaryDirectory(prefix: "chimectl-zsh")
        defer { directory.remove() }
        let script = try Self.script("zsh", in: directory)
        #expect(try ProcessRunner.run(Self.zshPath, ["-n", script]).status == 0)
        let tool = BinaryLocator.packageRoot.appendingPathComponent("Tests/Fixtures/zsh-complete").path
        let lines = [
            "chimectl ad", "chimectl add --tit", "chimectl add --urgency=crit", "chimectl qu", "chimectl quiet of",
            "chimectl --user sta", "chimectl completion fi",
        ]
        let run = try ProcessRunner.run(
            Self.zshPath, ["-f", tool, script] + lines, environment: ["TMPDIR": directory.path])
        #expect(
            run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast() == [
                "chimectl add ", "chimectl add --title=", "chimectl add --urgency=critical ", "chimectl quiet ",
                "chimectl quiet off ", "chimectl --user status ", "chimectl completion fish ",
            ], "\(run.standardError)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fishPath), "skipped: needs fish"))
    func fish() throws {
        let directory = try TemporaryDirectory(prefix: "chimectl-fish")
        defer { directory.remove() }
        let script = try Self.script("fish", in: directory)
        func complete(_ line: String) throws -> [String] {
            let run = try ProcessRunner.run(
                Self.fishPath, ["--no-config", "-c", "source \(script); complete -C '\(line)'"],
                environment: [
                    "HOME": directory.path, "XDG_CONFIG_HOME": directory.path, "XDG_DATA_HOME": directory.path,
                ])
            #expect(run.standardError.isEmpty, "\(run.standardError)")
            return run.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(
            try complete("chimectl ad") == [
                "add\tSchedule a notification from the command line; it is kept across restarts"
            ])
        #expect(try complete("chimectl add --tit") == ["--title\tthe summary (required)"])
        #expect(
            try complete("chimectl add --urgency ").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == [
                "critical", "low", "normal",
            ])
        #expect(try complete("chimectl quiet o") == ["off", "on"])
        #expect(try complete("chimectl completion ") == ["bash", "fish", "zsh"])
    }
}
