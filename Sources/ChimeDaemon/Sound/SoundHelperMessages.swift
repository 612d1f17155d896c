import Foundation

/// What chimed and its sound helper, `chime-sound`, say to each other: one JSON object a line, chimed's on the
/// helper's stdin, the helper's on its stdout.
public enum SoundHelperMessages {
    /// chimed → helper: play `play` as playback `token`, or stop playback `token` (`play` absent).
    public struct Command: Codable, Sendable, Equatable {
        public var token: UInt64
        public var play: Playback?

        public init(token: UInt64, play: Playback?) {
            self.token = token
            self.play = play
        }
    }

    /// A `SoundRequest` on the wire: spans in microseconds.
    public struct Playback: Codable, Sendable, Equatable {
        public var sound: String?
        public var theme: String
        public var volume: Int
        public var ringingMicroseconds: Int64?
        public var fadeInMicroseconds: Int64
        public var speech: String?
        public var language: String?

        public init(_ request: SoundRequest) {
            sound = request.sound
            theme = request.theme
            volume = request.volume
            ringingMicroseconds = request.ringing?.wholeMicroseconds
            fadeInMicroseconds = request.fadeIn.wholeMicroseconds
            speech = request.speech
            language = request.language
        }

        /// The request, its values brought back within their bounds.
        public var request: SoundRequest {
            SoundRequest(
                sound: sound, theme: theme, volume: min(max(volume, 0), 100),
                ringing: ringingMicroseconds.map { .microseconds(max($0, 0)) },
                fadeIn: .microseconds(max(fadeInMicroseconds, 0)), speech: speech, language: language)
        }
    }

    /// helper → chimed: how playback `token` ended.
    public struct Ending: Codable, Sendable, Equatable {
        public var token: UInt64
        /// `played`, `stopped` or `failed`.
        public var outcome: String
        public var reason: String?

        public init(token: UInt64, ending: SoundEnding) {
            self.token = token
            switch ending {
            case .played: outcome = "played"
            case .stopped: outcome = "stopped"
            case .failed(let why):
                outcome = "failed"
                reason = why
            }
        }

        public var ending: SoundEnding {
            switch outcome {
            case "played": .played
            case "stopped": .stopped
            default: .failed(reason ?? "the sound player gave no reason")
            }
        }
    }

    /// `value` as one line.
    public static func line<Value: Encodable>(_ value: Value) -> Data {
        var data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
