// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ReminderSim",
    products: [
        // The two engines, as an app would embed them.
        .library(name: "ReminderSimEngines", targets: ["ReminderEngine", "CronEngine"]),
        .executable(name: "remindersim", targets: ["remindersim"]),
    ],
    targets: [
        .systemLibrary(
            name: "ReminderSimSQLite",
            path: "Sources/ReminderSimSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "ReminderEngine"),
        .target(name: "CronEngine"),
        .target(name: "Randomness"),
        .target(name: "Simulation", dependencies: ["ReminderEngine", "CronEngine", "Randomness", "RecordedData"]),
        .target(name: "Console"),
        .target(name: "Storage", dependencies: ["ReminderSimSQLite", "Simulation", "ReminderEngine"]),
        .target(name: "Rendering"),
        .target(name: "Fitting", dependencies: ["Randomness", "RecordedData"]),
        .target(name: "RecordedData"),
        .target(name: "Reporting", dependencies: ["Rendering", "Storage", "Simulation", "ReminderEngine", "Fitting", "RecordedData"]),
        .target(
            name: "ReminderSimCLI",
            dependencies: [
                "Console", "Simulation", "Storage", "Reporting", "ReminderEngine", "Fitting", "RecordedData",
            ]
        ),
        .executableTarget(name: "remindersim", dependencies: ["ReminderSimCLI"]),

        // Helpers shared by the test targets: a seeded generator, a process launcher, an SVG checker.
        .target(name: "ReminderSimTestSupport", dependencies: ["Simulation"], path: "Tests/TestSupport"),
        .testTarget(name: "ReminderEngineTests", dependencies: ["ReminderEngine", "ReminderSimTestSupport"]),
        .testTarget(name: "CronEngineTests", dependencies: ["CronEngine"]),
        .testTarget(name: "RandomnessTests", dependencies: ["Randomness"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Randomness", "ReminderEngine", "CronEngine"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "ReminderSimTestSupport"]),
        .testTarget(name: "FittingTests", dependencies: ["Fitting", "Randomness", "RecordedData"]),
        .testTarget(name: "RecordedDataTests", dependencies: ["RecordedData"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Simulation", "ReminderEngine", "ReminderSimTestSupport"]),
        .testTarget(
            name: "ReportingTests", dependencies: ["Reporting", "Storage", "Simulation", "Rendering", "ReminderSimTestSupport"]),
        .testTarget(
            name: "CLITests",
            dependencies: ["ReminderSimCLI", "Console", "Rendering", "Storage", "Simulation", "ReminderSimTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
