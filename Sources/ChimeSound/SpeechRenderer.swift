import ChimeCore
import ChimeDaemon
import Foundation

/// Text read aloud, rendered by espeak-ng to a WAV file that the player then plays like any sound: at the
/// notification's volume, to the same audio server, stopped by the same answer.
public struct SpeechRenderer: Sendable {
    public static let program = "/usr/bin/espeak-ng"
    /// The most characters read: a notification's title and body, not a book.
    static let maximumCharacters = 2_000
    /// How long rendering may take.
    static let timeout = Duration.seconds(30)

    /// Where the files are written (chimed's runtime directory); each is removed once played.
    let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Why there is no speech here, if there is none (Debian: espeak-ng).
    public static var unmetRequirement: String? {
        FileManager.default.isExecutableFile(atPath: program) ? nil : "no speech: \(program) is missing (espeak-ng)"
    }

    /// The espeak-ng voice of a language tag: `de`, `en-gb` of `en_GB`.
    static func voice(of language: String) -> String {
        language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// Renders `text` in `language` (espeak-ng's default voice when it has none for it); the file, or why not.
    public func render(_ text: String, language: String?) async -> Result<String, SpeechFailure> {
        if let problem = Self.unmetRequirement { return .failure(SpeechFailure(reason: problem)) }
        let file = directory + "/speech-\(UUID().uuidString).wav"
        let input = Data(String(text.prefix(Self.maximumCharacters)).utf8)
        var voices: [String?] = [nil]
        if let language { voices.insert(Self.voice(of: language), at: 0) }
        var problem = "espeak-ng rendered nothing"
        for voice in voices {
            let argv = [Self.program, "--stdin", "-w", file] + (voice.map { ["-v", $0] } ?? [])
            do {
                let outcome = try await CommandRunner.run(
                    argv, environment: CommandRunner.programEnvironment(base: [:]), input: input, timeout: Self.timeout)
                if outcome.ending == .exited(status: 0) { return .success(file) }
                problem =
                    "espeak-ng \(outcome.explanation(timeout: Self.timeout))"
                    + (outcome.quotedStandardError().map { ": \($0)" } ?? "")
            } catch {
                problem = "cannot start espeak-ng: \(error)"
            }
        }
        unlink(file)
        return .failure(SpeechFailure(reason: problem))
    }
}

public struct SpeechFailure: Error, Sendable {
    public var reason: String
}
