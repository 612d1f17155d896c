import ChimeControl
import Foundation

exit(Chimectl.main(Array(CommandLine.arguments.dropFirst()), context: .process()).rawValue)
