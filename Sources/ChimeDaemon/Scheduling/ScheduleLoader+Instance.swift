import ChimeCore

extension ScheduleLoader {
    /// The sources of an instance, in order of precedence: the notification files of the configuration directories,
    /// then those added at run time with `chimectl add` (`DaemonOptions.addedDirectory`).
    ///
    /// Being the later source, a runtime request never shadows a file: one with the id of a file-defined
    /// notification is dropped with a warning, as any later duplicate is. Drop-ins of the configuration directories
    /// do not apply to runtime requests, which are whole files of their own.
    public init(instance options: DaemonOptions, zones: ZoneDatabase = .system) {
        self.init(
            sources: [
                NotificationDirectorySource(directories: options.configDirectories),
                NotificationDirectorySource(directories: [options.addedDirectory]),
            ],
            zones: zones)
    }
}
