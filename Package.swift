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
        .systemLibrary(
            name: "ReminderSimZlib",
            path: "Sources/ReminderSimZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "ReminderEngine", exclude: ["README.md"]),
        .target(name: "CronEngine", exclude: ["README.md"]),
        .target(name: "Randomness", exclude: ["README.md"]),
        .target(
            name: "Simulation", dependencies: ["ReminderEngine", "CronEngine", "Randomness", "RecordedData"],
            exclude: ["README.md"]),
        .target(name: "Console", exclude: ["README.md"]),
        .target(name: "Storage", dependencies: ["ReminderSimSQLite", "Simulation", "ReminderEngine"], exclude: ["README.md"]),
        .target(name: "Rendering", exclude: ["README.md"]),
        .target(name: "Fitting", dependencies: ["Randomness", "RecordedData"], exclude: ["README.md"]),
        .target(name: "RecordedData", dependencies: ["ReminderSimZlib"], exclude: ["README.md"]),
        .target(
            name: "Calibration", dependencies: ["Simulation", "Fitting", "Randomness", "RecordedData"],
            exclude: ["README.md"]),
        .target(
            name: "Reporting", dependencies: ["Rendering", "Storage", "Simulation", "ReminderEngine", "Fitting", "RecordedData"],
            exclude: ["README.md"]),
        .target(
            name: "ReminderSimCLI",
            dependencies: [
                "Console", "Simulation", "Storage", "Reporting", "ReminderEngine", "Fitting", "RecordedData", "Calibration",
            ],
            exclude: ["README.md"]
        ),
        .executableTarget(name: "remindersim", dependencies: ["ReminderSimCLI"], exclude: ["README.md"]),

        // Helpers shared by the test targets: a seeded generator, a process launcher, an SVG checker.
        .target(name: "ReminderSimTestSupport", dependencies: ["Simulation"], path: "Tests/TestSupport", exclude: ["README.md"]),
        .testTarget(name: "ReminderEngineTests", dependencies: ["ReminderEngine", "ReminderSimTestSupport"]),
        .testTarget(name: "CronEngineTests", dependencies: ["CronEngine"]),
        .testTarget(name: "RandomnessTests", dependencies: ["Randomness"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console"]),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Randomness", "ReminderEngine", "CronEngine"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "ReminderSimTestSupport"]),
        .testTarget(name: "FittingTests", dependencies: ["Fitting", "Randomness", "RecordedData"]),
        .testTarget(name: "RecordedDataTests", dependencies: ["RecordedData", "ReminderSimZlib"]),
        .testTarget(name: "CalibrationTests", dependencies: ["Calibration", "Simulation"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Simulation", "ReminderEngine", "ReminderSimTestSupport"]),
        .testTarget(
            name: "ReportingTests", dependencies: ["Reporting", "Storage", "Simulation", "Rendering", "ReminderSimTestSupport"]),
        .testTarget(
            name: "CLITests",
            dependencies: ["ReminderSimCLI", "Console", "Rendering", "Storage", "Simulation", "ReminderSimTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
