import ChimeSound
import Foundation

// chimed's sound helper: chimed starts it, and it ends on its own once nothing has played for a minute.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" || arguments.count != 1 {
    let usage = """
        Usage: chime-sound SCRATCH_DIR

        Plays the sounds and speech of chimed --user's notifications through the user's audio server: commands
        come as JSON lines on stdin, how each playback ended goes to stdout. chimed starts it; it is not meant to
        be run by hand. SCRATCH_DIR is where speech is rendered (chimed's runtime directory).

        """
    FileHandle.standardError.write(Data(usage.utf8))
    exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 64)
}
signal(SIGPIPE, SIG_IGN)
let player = ThemedSoundPlayer(environment: ProcessInfo.processInfo.environment, scratchDirectory: arguments[0])
SoundHelperService(player: player, idleLimit: .seconds(60)).run()
