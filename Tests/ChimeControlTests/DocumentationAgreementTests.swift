import Foundation
import Testing

@testable import ChimeControl
@testable import ChimeDaemon

/// What README.md, the man pages, docs/ and the help texts each say where more than one of them says it: the
/// documents they link to, the lists of man pages and backends, the options a usage line offers, and the figures
/// quoted twice. Each can drift on its own; here they are compared.
@Suite struct DocumentationAgreementTests {
    static func read(_ path: String) throws -> String { try DocumentationTests.read(path) }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: DocumentationTests.root.appendingPathComponent(path).path)
    }

    /// A page's text without roff: font changes and escapes gone, macro lines dropped, lines joined by spaces.
    static func plainText(ofPage path: String) throws -> String {
        try read(path).split(separator: "\n").filter { !$0.hasPrefix(".") }.map { ManPage.plain($0) }
            .joined(separator: " ")
    }

    @Test(arguments: ["README.md", "docs/security.md", "docs/reliability.md"])
    func everyDocumentADocumentNamesIsInTheRepository(path: String) throws {
        let text = try Self.read(path)
        let directory = (path as NSString).deletingLastPathComponent
        // Markdown links to files: "](man/chimed.8)", "](bench/scale.md#…)".
        var targets: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "](") {
            let target = rest[open.upperBound...].prefix { $0 != ")" && $0 != "#" && $0 != " " }
            if !target.isEmpty, !target.contains("://"), !target.hasPrefix("mailto:") { targets.append(String(target)) }
            rest = rest[open.upperBound...]
        }
        for target in targets {
            let resolved = directory.isEmpty ? target : (directory as NSString).appendingPathComponent(target)
            #expect(Self.exists((resolved as NSString).standardizingPath), "\(path) links to \(target)")
        }
        // Documents named in the text: "DESIGN.md", "docs/security.md".
        let words = text.split { " \n`()[],;:*\"'".contains($0) }
        for word in words where word.hasSuffix(".md") && word.first?.isLetter == true && !word.contains("/../") {
            let name = String(word)
            let candidates = [name, directory + "/" + name, "docs/" + name, "bench/" + name]
            #expect(candidates.contains(where: Self.exists), "\(path) names \(name), which is not in the repository")
        }
    }

    @Test func theReadmesLayoutNamesEveryManPage() throws {
        let readme = try Self.read("README.md")
        let layout = try #require(readme.range(of: "`man/` ("), "README.md: no `man/` in the project layout")
        // The list runs to the parenthesis that closes "(": the one after the last "(N)".
        let text = readme[layout.upperBound...].prefix(400).replacingOccurrences(of: "\n", with: " ")
        let list = text.components(separatedBy: "), `").first ?? text
        let pages = try FileManager.default.contentsOfDirectory(
            atPath: DocumentationTests.root.appendingPathComponent("man").path
        ).filter { $0.last?.isNumber == true }
        for page in pages {
            let name = (page as NSString).deletingPathExtension
            let section = page.split(separator: ".").last!
            #expect(list.contains("\(name)(\(section))"), "README.md's layout leaves out \(name)(\(section))")
        }
    }

    /// Every place that lists the backends every instance has lists them all.
    @Test func everyListOfTheBuiltInBackendsHasThemAll() throws {
        let notificationPage = try Self.plainText(ofPage: "man/chime.notification.5")
        let deliver = try #require(notificationPage.range(of: "Deliver=BACKEND... (list)"))
        let places: [(String, Substring)] = [
            ("chime.notification(5) Deliver=", notificationPage[deliver.upperBound...].prefix(600)),
            ("chimed.conf(5)", try Self.plainText(ofPage: "man/chimed.conf.5")[...]),
            (
                "README.md's Deliver= row",
                try #require(try Self.read("README.md").split(separator: "\n").first { $0.hasPrefix("| `Deliver=`") })
            ),
        ]
        for (place, text) in places {
            for name in DaemonConfiguration.builtInNames {
                #expect(text.contains(name), "\(place) leaves out the backend \(name)")
            }
        }
    }

    /// The options a usage line offers as alternatives are the ones the command requires one of.
    @Test func addsUsageOffersEveryWayToSayWhen() throws {
        let usage = AddCommand.usage
        let open = try #require(usage.firstIndex(of: "("))
        let close = try #require(usage.firstIndex(of: ")"))
        let offered = usage[usage.index(after: open)..<close].split(separator: "|").map {
            String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != "=" })
        }
        #expect(offered == NotificationRequest.whenOptions.map { "--" + $0 })
        let page = try Self.plainText(ofPage: "man/chimectl.1")
        let synopsis = try #require(page.range(of: "add --title=TEXT ("))
        let manOffered = page[synopsis.upperBound...].prefix { $0 != ")" }.split(separator: "|").map {
            String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != "=" })
        }
        #expect(manOffered == offered)
    }

    /// Each command's help names each of its options, and no option it does not take.
    @Test func everyCommandsHelpNamesItsOptionsAndNoOthers() throws {
        let global = Set(
            Chimectl.globalGrammar.valued.map { "--" + $0 } + Chimectl.globalGrammar.flags.map { "--" + $0 })
        for command in Chimectl.commands {
            // Another program's or command's option ('chimed --check', 'chimectl add --at') is not this one's.
            let help = ChimectlTests.run([command.name, "--help"]).output.replacingOccurrences(
                of: "(chimed|chimectl [a-z]+) --[a-z-]+", with: "", options: .regularExpression)
            var named = Set<String>()
            for word in help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") })
            where word.hasPrefix("--") && word.count > 2 {
                named.insert(String(word))
            }
            let own = DocumentationTests.options(of: command)
            #expect(own.subtracting(named).isEmpty, "\(command.name) --help leaves out \(own.subtracting(named))")
            let foreign = named.subtracting(own).subtracting(global)
            #expect(foreign.isEmpty, "\(command.name) --help names options it does not take: \(foreign.sorted())")
        }
    }

    /// chimed(8)'s synopsis of the daemon and of `--check` offers every option they take.
    @Test func chimedsSynopsisOffersEveryOption() throws {
        let roff = try Self.read("man/chimed.8")
        let lines = roff.split(separator: "\n").filter { $0.hasPrefix("\\fBchimed\\fR") }.map { ManPage.plain($0) }
        let modes = ["--check", "--help", "--version"]
        let taken = DocumentationTests.chimedOptions.subtracting(modes)
        let run = try #require(lines.first { line in !modes.contains(where: line.contains) })
        let check = try #require(lines.first { $0.hasPrefix("chimed --check") })
        for option in taken {
            #expect(run.contains(option), "chimed(8)'s synopsis leaves out \(option)")
            #expect(check.contains(option), "chimed(8)'s --check synopsis leaves out \(option)")
        }
    }

    /// The exposure of the system and user units: docs/security.md's bounds, which the end-to-end test enforces,
    /// are the figures README.md and docs/security.md quote.
    @Test func theUnitsExposureIsQuotedAsItIsBound() throws {
        let security = try Self.read("docs/security.md")
        let readme = try Self.read("README.md")
        func number(after marker: String, in text: String) -> [String] {
            text.components(separatedBy: marker).dropFirst().map { String($0.prefix { $0.isNumber || $0 == "." }) }
                .filter { !$0.isEmpty }
        }
        let system = try #require(number(after: "rates the system unit above **", in: security).first)
        let user = try #require(number(after: "or the user unit above **", in: security).first)
        let quotedSystem =
            number(after: "`systemd-analyze security` rates ", in: readme)
            + number(after: "`systemd-analyze security` rates ", in: security)
            + number(
                after: "can write only `/var/lib/chime`. Exposure ",
                in: readme.replacingOccurrences(of: "\n  ", with: " "))
        #expect(quotedSystem.count >= 3, "\(quotedSystem)")
        #expect(quotedSystem.allSatisfy { $0 == system }, "system unit: bound \(system), quoted \(quotedSystem)")
        let quotedUser = number(
            after: "working; setuid helpers such as `pkexec` cannot be started from it. Exposure ",
            in: readme.replacingOccurrences(of: "\n  ", with: " "))
        #expect(quotedUser == [user], "user unit: bound \(user), quoted \(quotedUser)")
    }
}
