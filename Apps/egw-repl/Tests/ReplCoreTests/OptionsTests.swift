import Testing

@testable import ReplCore

@Suite struct OptionsTests {
    func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Options {
        guard case .run(let options) = try Options.parse(arguments: arguments, environment: environment) else {
            Issue.record("expected .run")
            return Options()
        }
        return options
    }

    @Test func defaults() throws {
        let options = try run([])
        #expect(options == Options())
        #expect(options.startsSandbox)
        #expect(options.environment == "sandbox")
        #expect(options.scriptPath == nil)
    }

    @Test func everyFlag() throws {
        let options = try run([
            "--api-base-url", "https://a.example", "--checkout-api-base-url=https://b.example",
            "--checkout-base-url", "https://c.example", "--merchant-base-url", "http://127.0.0.1:9",
            "--environment", "LIVE", "--no-sandbox", "--script", "s.egw", "--bail", "--json", "--no-color",
            "--history", "/tmp/h", "--timeout", "2.5", "--log-level", "debug",
        ])
        #expect(options.apiBaseURL == "https://a.example")
        #expect(options.checkoutAPIBaseURL == "https://b.example")
        #expect(options.checkoutBaseURL == "https://c.example")
        #expect(options.merchantBaseURL == "http://127.0.0.1:9")
        #expect(options.environment == "live")
        #expect(!options.startsSandbox)
        #expect(options.scriptPath == "s.egw")
        #expect(options.bail && options.json && options.noColor)
        #expect(options.historyPath == "/tmp/h")
        #expect(options.timeout == 2.5)
        #expect(options.logLevel == "debug")
    }

    @Test func sandboxTLSIsAFlagWithoutAValue() throws {
        #expect(try !run([]).sandboxTLS)
        #expect(try run(["--sandbox-tls", "--environment", "live"]).sandboxTLS)
        #expect(throws: ReplError.self) { try Options.parse(arguments: ["--sandbox-tls=yes"], environment: [:]) }
        #expect(Options.usage.contains("--sandbox-tls"))
    }

    @Test func environmentVariablesAndFlagsWin() throws {
        let environment = [
            "EGW_API_BASE_URL": "https://env.example", "EGW_ENVIRONMENT": "live", "EGW_NO_SANDBOX": "1",
            "EGW_HISTORY": "/tmp/env-history", "EGW_TIMEOUT": "3", "EGW_BAIL": "yes",
        ]
        let fromEnvironment = try run([], environment)
        #expect(fromEnvironment.apiBaseURL == "https://env.example")
        #expect(fromEnvironment.environment == "live")
        #expect(!fromEnvironment.startsSandbox)
        #expect(fromEnvironment.historyPath == "/tmp/env-history")
        #expect(fromEnvironment.timeout == 3)
        #expect(fromEnvironment.bail)
        let overridden = try run(["--api-base-url", "https://flag.example", "--environment", "sandbox"], environment)
        #expect(overridden.apiBaseURL == "https://flag.example")
        #expect(overridden.environment == "sandbox")
        #expect(try run([], ["EGW_NO_SANDBOX": "0"]).startsSandbox)
    }

    @Test func helpAndVersion() throws {
        #expect(try Options.parse(arguments: ["--help"], environment: [:]) == .help)
        #expect(try Options.parse(arguments: ["--json", "--version"], environment: [:]) == .version)
    }

    @Test(arguments: [
        ["--bogus"], ["--script"], ["--environment", "prod"], ["--timeout", "0"], ["--api-base-url", "ftp://x"],
        ["--log-level", "loud"], ["script.egw"], ["--bail=1"],
    ])
    func usageErrors(arguments: [String]) {
        #expect(throws: ReplError.self) { try Options.parse(arguments: arguments, environment: [:]) }
        do {
            _ = try Options.parse(arguments: arguments, environment: [:])
        } catch {
            #expect(error.code == .usage)
        }
    }

    @Test func badEnvironmentValueIsAUsageError() {
        #expect(throws: ReplError.self) { try Options.parse(arguments: [], environment: ["EGW_ENVIRONMENT": "x"]) }
    }

    @Test func browserAndScreenshots() throws {
        #expect(try run([]).browser == "headless")
        let options = try run(["--browser", "WebKit", "--screenshots", "/tmp/shots"], ["DISPLAY": ":99"])
        #expect(options.browser == "webkit")
        #expect(options.screenshotsPath == "/tmp/shots")
        #expect(try run([], ["EGW_BROWSER": "webkit", "WAYLAND_DISPLAY": "wayland-0"]).browser == "webkit")
        #expect(try run(["--browser", "headless"], ["EGW_BROWSER": "webkit"]).browser == "headless")
        #expect(try run(["--screenshots", "/tmp/s"], ["DISPLAY": ":1"]).screenshotsPath == "/tmp/s")
    }

    /// Each is a usage error (exit 64) whose message says what is wrong.
    @Test(arguments: [
        (
            ["--browser", "webkit"], [String: String](),
            "--browser webkit needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set (try xvfb-run -a)"
        ),
        (
            ["--browser", "webkit"], ["DISPLAY": ""],
            "--browser webkit needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set (try xvfb-run -a)"
        ),
        (["--browser", "gecko"], ["DISPLAY": ":1"], "--browser must be headless or webkit, not 'gecko'"),
        (
            ["--screenshots", "/tmp"], [String: String](),
            "--screenshots needs a display (WebKit renders the pages): neither DISPLAY nor WAYLAND_DISPLAY is set (try xvfb-run -a)"
        ),
    ])
    func browserUsageErrors(arguments: [String], environment: [String: String], message: String) {
        do {
            _ = try Options.parse(arguments: arguments, environment: environment)
            Issue.record("expected a usage error")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message == message)
        }
    }
}
