/// The shell's start-up settings, from command-line flags and `EGW_*`
/// environment variables (flags win).
public struct Options: Equatable, Sendable {
    /// Overrides the status-lookup base URL (`--api-base-url`, `EGW_API_BASE_URL`).
    public var apiBaseURL: String?
    /// Overrides the checkout API base URL (`--checkout-api-base-url`, `EGW_CHECKOUT_API_BASE_URL`).
    public var checkoutAPIBaseURL: String?
    /// Overrides the checkout page base URL (`--checkout-base-url`, `EGW_CHECKOUT_BASE_URL`).
    public var checkoutBaseURL: String?
    /// Where `payment create` goes (`--merchant-base-url`, `EGW_MERCHANT_BASE_URL`).
    public var merchantBaseURL: String?
    /// `sandbox` (default) or `live` (`--environment`, `EGW_ENVIRONMENT`).
    public var environment: String = "sandbox"
    /// Start the embedded sandbox (default); `--no-sandbox` or `EGW_NO_SANDBOX=1` turns it off.
    public var startsSandbox = true
    /// Serve the embedded sandbox over HTTPS from a test CA the SDK is told to trust (`--sandbox-tls`).
    public var sandboxTLS = false
    /// Read commands from this file instead of stdin (`--script`).
    public var scriptPath: String?
    /// Stop at the first failing command (`--bail`, `EGW_BAIL=1`).
    public var bail = false
    /// Print results as JSON (`--json`).
    public var json = false
    /// Never colour (`--no-color`).
    public var noColor = false
    /// The history file (`--history`, `EGW_HISTORY`); `nil` means the default under `$HOME`.
    public var historyPath: String?
    /// Seconds per network call (`--timeout`, `EGW_TIMEOUT`).
    public var timeout: Double?
    /// SDK log level (`--log-level`, `EGW_LOG_LEVEL`).
    public var logLevel: String?
    /// How much a payment prints (`-q`/`--quiet`, `-v`/`--verbose`); the last flag wins.
    public var verbosity: Verbosity = .normal
    /// Who shows the pages: `headless` (default) or `webkit`, a WebKitGTK window (`--browser`, `EGW_BROWSER`).
    public var browser = "headless"
    /// Save a PNG of every page state the buyer saw here (`--screenshots DIR`), as WebKit renders it
    /// (the headless browser's pages too: needs a display either way).
    public var screenshotsPath: String?
    /// Whether this run needs WebKitGTK: `--browser webkit` or `--screenshots`.
    public var usesWebKit: Bool { browser == "webkit" || screenshotsPath != nil }

    /// Creates the defaults.
    public init() {}

    /// What the command line asks for.
    public enum Action: Equatable, Sendable {
        /// Run the shell.
        case run(Options)
        /// Print ``usage`` and exit 0.
        case help
        /// Print the version and exit 0.
        case version
    }

    /// The usage text for `--help`.
    public static let usage = """
        usage: egw-repl [options]

        An interactive shell for the EGWPay SDK. It starts an embedded sandbox gateway on a
        loopback port and is ready to pay: type `help`, or pipe commands in (one per line).

        options:
          --api-base-url URL            merchant backend for status lookups   (EGW_API_BASE_URL)
          --checkout-api-base-url URL   checkout API: card sessions, 3-D Secure (EGW_CHECKOUT_API_BASE_URL)
          --checkout-base-url URL       checkout pages and card-encryption key (EGW_CHECKOUT_BASE_URL)
          --merchant-base-url URL       where `payment create` creates payments (EGW_MERCHANT_BASE_URL)
          --environment sandbox|live    live requires https everywhere        (EGW_ENVIRONMENT)
          --no-sandbox                  do not start the embedded sandbox     (EGW_NO_SANDBOX=1)
          --sandbox-tls                 the embedded sandbox speaks HTTPS from a test CA the SDK trusts
                                        (so --environment live works locally; `config` shows its pin)
          --timeout SECONDS             per network call                      (EGW_TIMEOUT)
          --log-level LEVEL             off, error, warning, info, debug      (EGW_LOG_LEVEL)
          --script FILE                 run the commands in FILE, then exit
          --bail                        stop at the first failing command     (EGW_BAIL=1)
          --json                        print results as JSON
          -v, --verbose                 show redacted bodies and JWE headers of each exchange
          -q, --quiet                   print results only
          --no-color                    never colour (also NO_COLOR, TERM=dumb)
          --history FILE                history file (default ~/.egw_repl_history; EGW_HISTORY)
          --browser headless|webkit     who shows the pages: the scripted headless browser (default) or
                                        a WebKitGTK window (needs DISPLAY or WAYLAND_DISPLAY) (EGW_BROWSER)
          --screenshots DIR             save a PNG of every page state the buyer saw: 01-<title>.png, ...
                                        (rendered by WebKit, either browser's pages: needs a display)
          --version                     print the version
          --help                        print this help

        exit status: 0 every command succeeded, 1 a command failed, 64 usage error.
        """

    /// Parses `arguments` (without the program name) and `environment`.
    ///
    /// - Throws: ``ReplError`` `.usage` for an unknown flag, a missing or bad value.
    public static func parse(arguments: [String], environment: [String: String]) throws(ReplError) -> Action {
        var options = Options()
        func env(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else {
                return nil
            }
            return value
        }
        func truthy(_ name: String) -> Bool {
            guard let value = env(name)?.lowercased() else {
                return false
            }
            return !["0", "false", "no", "off"].contains(value)
        }
        options.apiBaseURL = env("EGW_API_BASE_URL")
        options.checkoutAPIBaseURL = env("EGW_CHECKOUT_API_BASE_URL")
        options.checkoutBaseURL = env("EGW_CHECKOUT_BASE_URL")
        options.merchantBaseURL = env("EGW_MERCHANT_BASE_URL")
        options.historyPath = env("EGW_HISTORY")
        options.logLevel = env("EGW_LOG_LEVEL")
        if let value = env("EGW_ENVIRONMENT") {
            options.environment = try environmentValue(value, source: "EGW_ENVIRONMENT")
        }
        if let value = env("EGW_TIMEOUT") {
            options.timeout = try timeoutValue(value, source: "EGW_TIMEOUT")
        }
        if let value = env("EGW_BROWSER") {
            options.browser = try browserValue(value, source: "EGW_BROWSER")
        }
        options.startsSandbox = !truthy("EGW_NO_SANDBOX")
        options.bail = truthy("EGW_BAIL")

        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(ReplError) -> String {
                if let inline {
                    return inline
                }
                guard index < arguments.count else {
                    throw ReplError(.usage, "\(name) needs a value")
                }
                index += 1
                return arguments[index - 1]
            }
            func url() throws(ReplError) -> String {
                let text = try value()
                let lower = text.lowercased()
                guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                    throw ReplError(.usage, "\(name) must be an http or https URL")
                }
                return text
            }
            switch name {
            case "--help", "-h":
                return .help
            case "--version", "-V":
                return .version
            case "--api-base-url":
                options.apiBaseURL = try url()
            case "--checkout-api-base-url":
                options.checkoutAPIBaseURL = try url()
            case "--checkout-base-url":
                options.checkoutBaseURL = try url()
            case "--merchant-base-url":
                options.merchantBaseURL = try url()
            case "--environment":
                options.environment = try environmentValue(try value(), source: name)
            case "--no-sandbox":
                options.startsSandbox = false
            case "--sandbox-tls":
                options.sandboxTLS = true
            case "--script":
                options.scriptPath = try value()
            case "--bail":
                options.bail = true
            case "--json":
                options.json = true
            case "--verbose", "-v":
                options.verbosity = .verbose
            case "--quiet", "-q":
                options.verbosity = .quiet
            case "--no-color", "--no-colour":
                options.noColor = true
            case "--history":
                options.historyPath = try value()
            case "--browser":
                options.browser = try browserValue(try value(), source: name)
            case "--screenshots":
                options.screenshotsPath = try value()
            case "--timeout":
                options.timeout = try timeoutValue(try value(), source: name)
            case "--log-level":
                let level = try value().lowercased()
                guard CommandTable.logLevels.contains(level) else {
                    throw ReplError(
                        .usage, "--log-level must be one of: \(CommandTable.logLevels.joined(separator: ", "))")
                }
                options.logLevel = level
            default:
                if argument.hasPrefix("-") {
                    throw ReplError(.usage, "unknown option '\(name)'")
                }
                throw ReplError(.usage, "unexpected argument '\(argument)' (use --script FILE to run a file)")
            }
            let flags = [
                "--no-sandbox", "--sandbox-tls", "--bail", "--json", "--no-color", "--no-colour", "--verbose",
                "--quiet",
            ]
            if inline != nil && flags.contains(name) {
                throw ReplError(.usage, "\(name) takes no value")
            }
        }
        if env("DISPLAY") == nil, env("WAYLAND_DISPLAY") == nil {
            let missing = "neither DISPLAY nor WAYLAND_DISPLAY is set (try xvfb-run -a)"
            if options.browser == "webkit" {
                throw ReplError(.usage, "--browser webkit needs a display: \(missing)")
            }
            if options.screenshotsPath != nil {
                throw ReplError(.usage, "--screenshots needs a display (WebKit renders the pages): \(missing)")
            }
        }
        return .run(options)
    }

    static func browserValue(_ value: String, source: String) throws(ReplError) -> String {
        let lower = value.lowercased()
        guard ["headless", "webkit"].contains(lower) else {
            throw ReplError(.usage, "\(source) must be headless or webkit, not '\(value)'")
        }
        return lower
    }

    static func environmentValue(_ value: String, source: String) throws(ReplError) -> String {
        let lower = value.lowercased()
        guard CommandTable.environments.contains(lower) else {
            throw ReplError(.usage, "\(source) must be sandbox or live, not '\(value)'")
        }
        return lower
    }

    static func timeoutValue(_ value: String, source: String) throws(ReplError) -> Double {
        guard let seconds = Double(value), seconds > 0, seconds <= 600 else {
            throw ReplError(.usage, "\(source) must be a number of seconds from 0 to 600")
        }
        return seconds
    }
}
