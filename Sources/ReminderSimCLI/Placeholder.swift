#if canImport(Glibc)
@_exported import Glibc
#endif

/// The `remindersim` entry point.
public enum RemindersimCommand {
    public static let version = "0.1.0"

    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int32 {
        if arguments.contains("--version") {
            print(version)
            return 0
        }
        print("""
            USAGE: remindersim <command>

            Measures what reminder notifications and launch-count rules do to an app's users.
            """)
        return arguments.isEmpty || arguments.contains("--help") ? 0 : 64
    }
}
