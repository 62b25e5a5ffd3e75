import Foundation
import XCTest

/// Every file imports only modules its target declares in `Package.swift`, and every module only what its
/// README allows: the boundaries the package describes are the ones it has.
final class ModuleBoundaryTests: XCTestCase {
    /// The package's folder: this file is `Tests/PackageTests/ModuleBoundaryTests.swift`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Why the package's files could not be read.
    struct ReadFailure: Error, CustomStringConvertible { var description: String }

    /// The package as it is on disk, read once for all the tests that look at it.
    static let package = Result { try readPackage() }.mapError { ReadFailure(description: "\($0)") }

    static func loadPackage() throws -> (PackageManifest, ModuleBoundaries) { try package.get() }

    /// The package as it is on disk: its targets, their Swift files and their READMEs' rules.
    static func readPackage() throws -> (PackageManifest, ModuleBoundaries) {
        let manifestText = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let manifest = PackageManifest(text: manifestText)
        var files: [ModuleBoundaries.SourceFile] = []
        var rules: [String: ModuleRules] = [:]
        for target in manifest.targets {
            let folder = root.appendingPathComponent(target.path)
            let readme = folder.appendingPathComponent("README.md")
            if let text = try? String(contentsOf: readme, encoding: .utf8) {
                rules[target.name] = ModuleRules(readme: text, name: target.path)
            }
            let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            for name in names.sorted() where name.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                files.append(.init(target: target.name, path: target.path + "/" + name, imports: ImportLines.imports(in: text)))
            }
        }
        return (manifest, ModuleBoundaries(targets: manifest.targets, files: files, rules: rules))
    }

    func testEveryImportIsDeclaredAndAllowed() throws {
        let (manifest, boundaries) = try Self.loadPackage()
        XCTAssertEqual(manifest.problems, [])
        XCTAssertGreaterThan(manifest.targets.count, 20, "the targets of Package.swift were not found")
        XCTAssertGreaterThan(boundaries.files.count, 100, "the Swift files were not found under \(Self.root.path)")
        for target in manifest.targets {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target.path).path,
                                                        isDirectory: &isFolder)
            XCTAssertTrue(exists && isFolder.boolValue, "\(target.name): no folder \(target.path)")
        }
        XCTAssertEqual(boundaries.problems(), [])
    }

    /// Every module that is not a test states its rules: what it may and must not import, or for a system
    /// library, who may import it.
    func testEveryModuleStatesItsRules() throws {
        let (manifest, boundaries) = try Self.loadPackage()
        XCTAssertGreaterThan(manifest.targets.count, 20, "the targets of Package.swift were not found")
        for target in manifest.targets where target.kind != "testTarget" {
            guard let rule = boundaries.rules[target.name] else {
                XCTFail("\(target.path) has no README.md")
                continue
            }
            if target.kind == "systemLibrary" {
                XCTAssertNotNil(rule.importedOnlyBy, "\(target.path)/README.md has no \"Imported only by:\" line")
            } else {
                XCTAssertNotNil(rule.mayImport, "\(target.path)/README.md has no \"May import:\" line")
                XCTAssertNotNil(rule.mustNotImport, "\(target.path)/README.md has no \"Must not import:\" line")
            }
        }
    }

    /// The engines build on nothing of the simulator, and neither do their tests: the test helpers they use
    /// are the domain-free ones.
    func testTheEnginesTestsBuildWithoutTheSimulation() throws {
        let (manifest, _) = try Self.loadPackage()
        for name in ["ReminderEngine", "CronEngine", "ReminderEngineTests", "CronEngineTests"] {
            XCTAssertNotNil(manifest.targets.first { $0.name == name }, "no target \(name)")
            let needed = Self.dependencies(of: name, in: manifest)
            XCTAssertFalse(needed.contains("Simulation"), "\(name) builds with \(needed.sorted())")
        }
    }

    /// Every target `name` needs, directly or through others.
    static func dependencies(of name: String, in manifest: PackageManifest) -> Set<String> {
        var found = Set<String>()
        var pending = [name]
        while let next = pending.popLast() {
            for dependency in manifest.targets.first(where: { $0.name == next })?.dependencies ?? []
            where found.insert(dependency).inserted {
                pending.append(dependency)
            }
        }
        return found
    }

    /// The simulation reads and writes no files: recorded logs come in read (ScenarioData reads them).
    func testTheSimulationReadsNoFiles() throws {
        let (_, boundaries) = try Self.loadPackage()
        let files = boundaries.files.filter { $0.target == "Simulation" }
        XCTAssertGreaterThan(files.count, 20, "the simulation's files were not found")
        let fileAccess = ["FileManager", "FileHandle", "String(contentsOf", "Data(contentsOf", "contentsOfFile:", "toFile:", "write(to:", "fopen(",
                          "InputStream", "OutputStream", "fileURLWithPath", "RecordedLog.read(", "LogImporter"]
        var found: [String] = []
        for file in files {
            let text = SwiftText.withoutComments(
                try String(contentsOf: Self.root.appendingPathComponent(file.path), encoding: .utf8))
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for word in fileAccess where line.contains(word) { found.append("\(file.path):\(number + 1): \(word)") }
            }
        }
        XCTAssertEqual(found, [], "file access in Simulation; read files in ScenarioData and hand in what they hold")
    }

    /// The problems of the package as it is, but with a file of `target` importing `module` on line `line`;
    /// and the path of that file.
    func problems(with module: String, importedBy target: String, line: Int) throws -> (path: String, problems: [String]) {
        var (_, boundaries) = try Self.loadPackage()
        let index = try XCTUnwrap(boundaries.files.firstIndex { $0.target == target })
        boundaries.files[index].imports.append(ImportLine(module: module, line: line))
        return (boundaries.files[index].path, boundaries.problems())
    }

    /// The real rules catch a stray import: a simulation file that imports Storage breaks Package.swift's
    /// declaration, the README's list of what it may import and its list of what it must not.
    func testAStrayImportInThePackageIsFound() throws {
        let (path, problems) = try problems(with: "Storage", importedBy: "Simulation", line: 1)
        XCTAssertEqual(problems, [
            "\(path):1: Simulation imports Storage, which Package.swift does not declare among its dependencies",
            "\(path):1: Simulation imports Storage, which its README does not list under May import",
            "\(path):1: Simulation imports Storage, which its README says it must not import",
        ])
    }

    /// Only Storage touches SQLite.
    func testAnImportOfASystemLibraryByAnotherModuleIsFound() throws {
        let (path, problems) = try problems(with: "ReminderSimSQLite", importedBy: "Reporting", line: 3)
        XCTAssertEqual(problems, [
            "\(path):3: Reporting imports ReminderSimSQLite, which Package.swift does not declare among its dependencies",
            "\(path):3: Reporting imports ReminderSimSQLite, which its README does not list under May import",
            "\(path):3: Reporting imports ReminderSimSQLite, whose README lets only Storage import it",
        ])
    }

    /// A dependency declared in the manifest is checked against the README as an import is.
    func testADeclaredDependencyTheReadmeForbidsIsFound() {
        let manifest = PackageManifest(text: """
            let package = Package(
                name: "P",
                products: [.library(name: "L", targets: ["Core"])],
                targets: [
                    // The core: pure.
                    .target(name: "Core", dependencies: [.target(name: "IO")], exclude: ["README.md"]),
                    .target(name: "IO", path: "Sources/InputOutput"), /* a comma, inside: "," */
                    .testTarget(name: "CoreTests", dependencies: ["Core"]),
                ]
            )
            """)
        XCTAssertEqual(manifest.problems, [])
        XCTAssertEqual(manifest.targets, [
            .init(kind: "target", name: "Core", dependencies: ["IO"], path: "Sources/Core"),
            .init(kind: "target", name: "IO", dependencies: [], path: "Sources/InputOutput"),
            .init(kind: "testTarget", name: "CoreTests", dependencies: ["Core"], path: "Tests/CoreTests"),
        ])
        let rules = ModuleRules(readme: "# Core\n\nMay import: Foundation.\nMust not import: any other module of the package.\n",
                                name: "Sources/Core")
        let boundaries = ModuleBoundaries(
            targets: manifest.targets,
            files: [.init(target: "CoreTests", path: "Tests/CoreTests/T.swift",
                          imports: [ImportLine(module: "Core", line: 1), ImportLine(module: "IO", line: 2)])],
            rules: ["Core": rules])
        XCTAssertEqual(boundaries.problems(), [
            "Package.swift: Core depends on IO, which its README does not list under May import",
            "Package.swift: Core depends on IO, which its README says it must not import",
            "Tests/CoreTests/T.swift:2: CoreTests imports IO, which Package.swift does not declare among its dependencies",
        ])
    }

    func testAManifestItCannotReadIsAProblem() {
        let manifest = PackageManifest(text: """
            let shared: [Target.Dependency] = ["A"]
            let package = Package(name: "P", targets: [
                .target(name: "A"),
                .target(name: "B", dependencies: shared),
                .target(name: "C", dependencies: [.product(name: "X", package: "x")]),
                .plugin(name: "D", capability: .buildTool()),
            ])
            """)
        XCTAssertEqual(manifest.targets.map(\.name), ["A", "C"])
        XCTAssertEqual(manifest.problems, [
            "Package.swift: B: the dependencies are not a literal list",
            "Package.swift: C: cannot read the dependency .product(name: \"X\", package: \"x\")",
            "Package.swift: cannot read the target declaration .plugin(name: \"D\", capability: .buildTool())",
        ])
    }

    func testImportLinesInEveryForm() {
        let text = """
            import Foundation
            @testable import Storage
            @preconcurrency import Dispatch
            @_spi(Testing) public import Simulation
            import struct Rendering.CSVTable
            #if canImport(Glibc)
                import Glibc
            #endif
            // import Commented
            /* import Blocked
               import /* nested */ StillBlocked */
            let text = \"\"\"
            import Quoted
            \"\"\"
            let important = "import"; let imports = 1
            importer.feed()
            """
        XCTAssertEqual(ImportLines.imports(in: text), [
            ImportLine(module: "Foundation", line: 1), ImportLine(module: "Storage", line: 2),
            ImportLine(module: "Dispatch", line: 3), ImportLine(module: "Simulation", line: 4),
            ImportLine(module: "Rendering", line: 5), ImportLine(module: "Glibc", line: 7),
        ])
    }

    func testReadmeRuleLines() {
        let rules = ModuleRules(readme: """
            # M

            It may import the engines.

            May import: ReminderEngine, CronEngine, Foundation.
            Must not import: Storage, Reporting.
            Imported only by: remindersim.
            """, name: "Sources/M")
        XCTAssertEqual(rules.mayImport, ["ReminderEngine", "CronEngine", "Foundation"])
        XCTAssertEqual(rules.mustNotImport, ["Storage", "Reporting"])
        XCTAssertEqual(rules.importedOnlyBy, ["remindersim"])
        XCTAssertEqual(rules.problems, [])

        let vague = ModuleRules(readme: "May import: Simulation (the runner), the C library.\n", name: "Sources/V")
        XCTAssertEqual(vague.problems, [
            "Sources/V/README.md: \"May import: Simulation (the runner), the C library.\": \"Simulation (the runner)\" is not a module name",
            "Sources/V/README.md: \"May import: Simulation (the runner), the C library.\": \"the C library\" is not a module name",
        ])
        XCTAssertEqual(ModuleRules(readme: "May import: nothing.\n", name: "N").mayImport, [])
    }
}
