import ChimeCalendar
import Foundation

exit(
    CalendarGenerator.main(
        Array(CommandLine.arguments.dropFirst()),
        output: { FileHandle.standardOutput.write(Data($0.utf8)) },
        errors: { FileHandle.standardError.write(Data($0.utf8)) }))
