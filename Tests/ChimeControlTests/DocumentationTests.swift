import Foundation
import Testing

@testable import ChimeControl
@testable import ChimeCore
@testable import ChimeDaemon

/// Keeps README.md and the man pages in step with the code: every `chimectl` command and option, every `chimed` option
/// and journal event, and every key of a notification file, must be documented, and the documentation may not
/// describe commands, options, events or keys that do not exist.
@Suite struct DocumentationTests {
    /// The repository, found from this file's path so that the checks read the working tree, not a copied resource.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static let commandNames = Set(Chimectl.commands.map { $0.name })

    /// `--name` for each option a command accepts, `--help` included.
    static func options(of command: any Command.Type) -> Set<String> {
        Set(command.grammar.valued.map { "--" + $0 } + command.grammar.flags.map { "--" + $0 })
    }

    @Test func everyCommandHasAnEntryInChimectl1WithAllItsOptions() throws {
        let page = try ManPage(Self.read("man/chimectl.1"))
        let entries = try #require(page.section("COMMANDS"), "chimectl.1 has no COMMANDS section").tags
        let byName = Dictionary(entries.map { ($0.firstWord, $0) }, uniquingKeysWith: { first, _ in first })
        for command in Chimectl.commands {
            let entry = try #require(byName[command.name], "chimectl.1 does not document '\(command.name)'")
            for option in Self.options(of: command) where option != "--help" {
                #expect(entry.contains(option), "chimectl.1: '\(command.name)' entry lacks \(option)")
            }
        }
        #expect(byName.keys.sorted() == Self.commandNames.sorted())
    }

    @Test func everyOptionHasAnEntryInChimectl1() throws {
        let page = try ManPage(Self.read("man/chimectl.1"))
        let tags = try #require(page.section("OPTIONS"), "chimectl.1 has no OPTIONS section").tags
        // A tag such as "-h, --help" or "--iterations=N" names one or more options.
        var documented = Set<String>()
        for part in tags.flatMap({ $0.text.components(separatedBy: ", ") }) where part.hasPrefix("--") {
            documented.insert(String(part.prefix { $0 != "=" && $0 != " " }))
        }
        var existing: Set<String> = ["--version"]
        for command in Chimectl.commands { existing.formUnion(Self.options(of: command)) }
        existing.formUnion(
            Chimectl.globalGrammar.valued.map { "--" + $0 } + Chimectl.globalGrammar.flags.map { "--" + $0 })
        #expect(documented.sorted() == existing.sorted())
    }

    @Test func everyCommandHasASectionInTheReadme() throws {
        let headings = try Self.read("README.md").split(separator: "\n").filter { $0.hasPrefix("#") }
        var described = Set<String>()
        for heading in headings {
            guard let start = heading.range(of: "`chimectl ") else { continue }
            described.insert(String(heading[start.upperBound...].prefix { $0.isLetter || $0 == "-" }))
        }
        #expect(described.sorted() == Self.commandNames.sorted())
    }

    @Test(arguments: NotificationLoader.knownKeys.keys.sorted())
    func everyKeyOfASectionIsDocumentedInChimeNotification5(section: String) throws {
        let page = try ManPage(Self.read("man/chime.notification.5"))
        let title = "[\(section.uppercased())] SECTION OPTIONS"
        let tags = try #require(page.section(title), "chime.notification.5 has no \(title)").tags
        let documented = Set(tags.flatMap(\.keys))
        #expect(documented.sorted() == NotificationLoader.knownKeys[section]?.sorted())
    }

    @Test(arguments: DaemonConfiguration.knownKeys.keys.sorted())
    func everyKeyOfASectionIsDocumentedInChimedConf5(section: String) throws {
        let page = try ManPage(Self.read("man/chimed.conf.5"))
        let title = "[\(section.uppercased())] SECTION OPTIONS"
        let tags = try #require(page.section(title), "chimed.conf.5 has no \(title)").tags
        let documented = Set(tags.flatMap(\.keys))
        #expect(documented.sorted() == DaemonConfiguration.knownKeys[section]?.sorted())
    }

    @Test func readmeKeyTablesListEveryKey() throws {
        // Rows of the key tables start with a cell such as "`Title=`".
        var documented = Set<String>()
        for row in try Self.read("README.md").split(separator: "\n") where row.hasPrefix("| `") {
            let cell = row.dropFirst(3).prefix { $0 != "`" }
            if cell.hasSuffix("="), cell.dropLast().allSatisfy(\.isLetter) {
                documented.insert(String(cell.dropLast()))
            }
        }
        let keys = Set(NotificationLoader.knownKeys.values.flatMap { $0 })
            .union(DaemonConfiguration.knownKeys.values.flatMap { $0 })
        #expect(documented.sorted() == keys.sorted())
    }

    /// `--name` for each option chimed accepts, `--help` included.
    static var chimedOptions: Set<String> {
        Set(Chimed.grammar.valued.map { "--" + $0 } + Chimed.grammar.flags.map { "--" + $0 })
    }

    @Test func everyChimedOptionHasAnEntryInChimed8() throws {
        let page = try ManPage(Self.read("man/chimed.8"))
        let tags = try #require(page.section("OPTIONS"), "chimed.8 has no OPTIONS section").tags
        var documented = Set<String>()
        for part in tags.flatMap({ $0.text.components(separatedBy: ", ") }) where part.hasPrefix("--") {
            documented.insert(String(part.prefix { $0 != "=" && $0 != " " }))
        }
        #expect(documented.sorted() == Self.chimedOptions.sorted())
    }

    @Test func chimedHelpListsEveryOption() {
        // Option lines of the help start with two spaces, then "--name" or "-h, --name".
        var listed = Set<String>()
        for line in Chimed.help.split(separator: "\n") where line.hasPrefix("  -") {
            for word in line.split(separator: " ") where word.hasPrefix("--") {
                listed.insert(String(word.prefix { $0 != "=" && $0 != "," }))
            }
        }
        #expect(listed.sorted() == Self.chimedOptions.sorted())
    }

    @Test func everyEventKindHasAnEntryInChimed8WithItsMessageID() throws {
        let roff = try Self.read("man/chimed.8")
        for kind in DaemonEvent.Kind.allCases {
            #expect(roff.contains(kind.messageID), "chimed.8 lacks the MESSAGE_ID of '\(kind.rawValue)'")
        }
        // The entries of the event list read "KIND (MESSAGE_ID=ID)", and there is one for each kind, no more.
        let page = try ManPage(roff)
        let tags = try #require(page.section("JOURNAL"), "chimed.8 has no JOURNAL section").tags
        var documented: [String: String] = [:]
        for tag in tags {
            guard let range = tag.text.range(of: "MESSAGE_ID=") else { continue }
            let id = String(tag.text[range.upperBound...].prefix { $0.isHexDigit })
            #expect(documented.updateValue(id, forKey: tag.firstWord) == nil, "chimed.8: '\(tag.firstWord)' twice")
        }
        let expected = Dictionary(uniqueKeysWithValues: DaemonEvent.Kind.allCases.map { ($0.rawValue, $0.messageID) })
        #expect(documented == expected)
    }

    @Test(arguments: [
        "man/chimectl.1", "man/chime.notification.5", "man/chimed.8", "man/chimed.conf.5",
        "man/org.chime.Notifications1.5", "man/chime-calendar.1",
    ])
    func manPageNamesTheCurrentVersion(path: String) throws {
        let page = try ManPage(Self.read(path))
        #expect(page.header.contains("\"chime \(Chimectl.version)\""), "\(path): \(page.header)")
        #expect(Chimed.version == Chimectl.version)
    }

    /// The recipe of a Makefile target: the lines after "TARGET:" up to the first empty line.
    static func recipe(of target: String, in makefile: String) -> String {
        guard let start = makefile.range(of: "\n\(target):") else { return "" }
        let rest = makefile[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
    }

    @Test func makeInstallsAndUninstallsEveryManPage() throws {
        let makefile = try Self.read("Makefile")
        let install = Self.recipe(of: "install-files", in: makefile)
        let uninstall = Self.recipe(of: "uninstall", in: makefile)
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("man").path)
            .filter { $0.last?.isNumber == true }
        #expect(
            pages.sorted() == [
                "chime-calendar.1", "chime.notification.5", "chimectl.1", "chimed.8", "chimed.conf.5",
                "org.chime.Notifications1.5",
            ])
        for page in pages {
            let installed = "$(DESTDIR)$(MANDIR)/man\(page.last!)/\(page)"
            #expect(install.contains("install -m 0644 man/\(page) \(installed)"), "make install leaves out \(page)")
            #expect(uninstall.contains(installed), "make uninstall leaves \(page) behind")
        }
    }

    @Test func readmeStartsWithExactlyTwoCommands() throws {
        // Everything before the first section heading: the first screen of the README.
        let readme = try Self.read("README.md")
        let firstScreen = readme.components(separatedBy: "\n## ").first ?? ""
        var commands: [String] = []
        var inBlock = false
        for line in firstScreen.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
            } else if inBlock {
                commands.append(String(line))
            }
        }
        #expect(commands == ["make run", "make test"])
    }

    @Test func readmeCommandsAreMakeTargets() throws {
        let readme = try Self.read("README.md")
        let makefile = try Self.read("Makefile")
        for target in ["run", "test", "tsan", "asan", "install"] {
            #expect(readme.contains("make \(target)"))
            #expect(makefile.contains("\n\(target):"), "Makefile has no '\(target)' target")
        }
    }
}

/// The parts of a man page in roff (man macros) that the documentation checks look at.
struct ManPage {
    struct Section {
        var title: String
        /// The entries of the section, as plain text: each line that follows a `.PP` or `.TP` outside an indented
        /// block (`.RS`/`.RE`) and starts in bold, which is how both pages write a command, an option or a key.
        var tags: [Tag] = []
    }

    struct Tag {
        var text: String

        var firstWord: String { String(text.prefix { $0 != " " }) }

        /// The keys a key entry names: "Icon=name-or-path, Category=name" names Icon and Category.
        var keys: [String] {
            text.components(separatedBy: ", ").compactMap { part in
                guard let equals = part.firstIndex(of: "="), let first = part.first, first.isUppercase else {
                    return nil
                }
                let key = part[..<equals]
                return key.allSatisfy { $0.isASCII && $0.isLetter } ? String(key) : nil
            }
        }

        func contains(_ text: String) -> Bool { self.text.contains(text) }
    }

    enum Failure: Error {
        case unbalancedIndentation(line: Int)
    }

    var header = ""
    var sections: [Section] = []

    init(_ roff: String) throws {
        var depth = 0
        var afterParagraph = false
        for (number, line) in roff.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix(".TH ") {
                header = String(line)
            } else if line.hasPrefix(".SH ") {
                let title = Self.plain(line.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                sections.append(Section(title: title))
                depth = 0
            } else if line.hasPrefix(".RS") {
                depth += 1
            } else if line.hasPrefix(".RE") {
                depth -= 1
                guard depth >= 0 else { throw Failure.unbalancedIndentation(line: number + 1) }
            } else if line == ".PP" || line.hasPrefix(".TP") {
                afterParagraph = true
                continue
            } else if afterParagraph, depth == 0, line.hasPrefix("\\fB"), !sections.isEmpty {
                sections[sections.count - 1].tags.append(Tag(text: Self.plain(line)))
            }
            afterParagraph = false
        }
    }

    func section(_ title: String) -> Section? {
        sections.first { $0.title == title }
    }

    /// The text of a roff line without font changes and with the escapes the pages use replaced.
    static func plain(_ line: Substring) -> String {
        var text = String(line)
        for font in ["\\fB", "\\fI", "\\fR", "\\fP"] {
            text = text.replacingOccurrences(of: font, with: "")
        }
        let escapes = [("\\-", "-"), ("\\(aq", "'"), ("\\(mu", "×"), ("\\&", ""), ("\\ ", " "), ("\\e", "\\")]
        for (escape, replacement) in escapes {
            text = text.replacingOccurrences(of: escape, with: replacement)
        }
        return text
    }
}
