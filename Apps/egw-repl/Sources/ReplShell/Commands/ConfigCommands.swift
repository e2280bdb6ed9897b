import EGWWire
import ReplCore

extension Shell {
    /// `config`, `config set KEY VALUE`.
    func runConfig(_ command: ConfigCommand) throws(ReplError) {
        switch command {
        case .show:
            showConfiguration()
        case .set(let key, let value):
            try setConfiguration(key, value)
        }
    }

    func showConfiguration() {
        // With --sandbox-tls: the test CA the SDK trusts, and its SHA-256 fingerprint (read-only rows).
        let trust: [(String, String)] =
            [("browser", options.browser)] + (options.screenshotsPath.map { [("screenshots", $0)] } ?? [])
            + (sandbox.map { [("sandbox-pages", $0.pages.rawValue)] } ?? [])
            // What the embedded sandbox's control endpoints and payment reads over HTTP need (X-Sandbox-Token).
            + (sandbox.map { [("sandbox-control-token", $0.controlToken)] } ?? [])
            + (sandbox?.tlsTrust.map {
                [("sandbox-ca", $0.certificateAuthorityFile), ("sandbox-ca-sha256", $0.certificateAuthoritySHA256)]
            } ?? [])
        if options.json {
            var object: [(String, JSONValue)] = []
            for key in ConfigKey.allCases {
                object.append((key.rawValue, .string(configuration.value(of: key))))
            }
            object += trust.map { ($0.0, .string($0.1)) }
            console.out(JSONValue.members(object).jsonText)
            return
        }
        console.table(ConfigKey.allCases.map { ($0.rawValue, configuration.value(of: $0)) } + trust)
    }

    /// The CA file of the embedded sandbox when it serves HTTPS (`--sandbox-tls`): every transport of the
    /// shell (the SDK's, the buyer's browser, `payment create`, `status`) trusts it.
    var trustedAuthorityFile: String? { sandbox?.tlsTrust?.certificateAuthorityFile }

    func setConfiguration(_ key: ConfigKey, _ value: String) throws(ReplError) {
        try configuration.set(key, value)
        note("\(key.rawValue) = \(configuration.value(of: key))")
    }
}
