// swift-tools-version:6.0
import PackageDescription

// egw-repl: the interactive shell that composes every package of the SDK.
// Sibling packages are added to the dependency list as they land.
let package = Package(
    name: "egw-repl",
    products: [
        .executable(name: "egw-repl", targets: ["egw-repl"]),
        // The same shell with WebKitGTK linked in: egw-repl runs it for --browser webkit and
        // --screenshots, so egw-repl's own start loads no GTK (issue 6's start-up and memory targets).
        .executable(name: "egw-repl-webkit", targets: ["egw-repl-webkit"]),
    ],
    dependencies: [
        .package(path: "../../Packages/EGWWire"),
        .package(path: "../../Packages/CardValidation"),
        .package(path: "../../Packages/GatewaySandbox"),
        .package(path: "../../Packages/JWE"),
        .package(path: "../../Packages/PaymentFlow"),
        .package(path: "../../Packages/HeadlessBrowser"),
        .package(path: "../../Packages/FuzzSupport"),
        .package(path: "../../Packages/TestSupport"),
        .package(path: "../../Packages/PaymentAuthorization"),
        .package(path: "../../Packages/WebKitPresenter"),
    ],
    targets: [
        // The system BSD editline library (apt: libedit-dev), readline-compatible API.
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        // Fixed-arity C functions for what Swift cannot or should not touch directly:
        // the rl_* globals, the completion hook, history files, the terminal size.
        .target(name: "CEditLineShim", dependencies: ["CEditLine"]),
        // The interpreter as a pure function of input lines: tokenizer, command table,
        // parser, errors with positions, completion, history policy, option parsing.
        // CardValidation (Foundation only) gives it the SDK's one card-number redaction rule;
        // two dependency-free vocabularies the words it parses: the buyer's `HostedChoice`
        // (BuyerVocabulary) and the sandbox's endpoint and fault names (SandboxVocabulary). No
        // browser, libcurl, OpenSSL or libmicrohttpd is linked into the interpreter.
        .target(
            name: "ReplCore",
            dependencies: [
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "BuyerVocabulary", package: "HeadlessBrowser"),
                .product(name: "SandboxVocabulary", package: "GatewaySandbox"),
            ],
            path: "Sources/ReplCore"),
        // The shell itself: sessions, commands, the payment wait, output; tested in ReplShellTests.
        .target(
            name: "ReplShell",
            dependencies: [
                "ReplCore", "CEditLineShim",
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "JWE", package: "JWE"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
            ]
        ),
        // The shell's WebKitGTK side (ReplShell's WebKitSupport): GTK's loop, the window, snapshots.
        .target(
            name: "ReplWebKit",
            dependencies: [
                "ReplShell",
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
            ]
        ),
        .executableTarget(name: "egw-repl", dependencies: ["ReplShell"]),
        .executableTarget(name: "egw-repl-webkit", dependencies: ["ReplShell", "ReplWebKit"]),
        .executableTarget(
            name: "ReplCoreFuzz",
            dependencies: [
                "ReplCore", .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
            ],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "ReplCoreTests",
            dependencies: [
                "ReplCore", "ReplCoreFuzz", .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
        // The shell driven by a fake line source and clock, and the built binary run as a process.
        .testTarget(
            name: "ReplShellTests",
            dependencies: [
                "ReplShell", "ReplCore",
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
