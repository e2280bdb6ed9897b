/// Helpers the `egw-sandbox` executable shares with tests.
public enum SandboxCommandLine {
    /// Loads a private RSA JWK from `file` into `configuration`.
    ///
    /// - Throws: `SandboxError` `.keyUnavailable` when the file cannot be read or is not a usable key.
    public static func applyKey(file: String, to configuration: inout Sandbox.Configuration) throws(SandboxError) {
        throw SandboxError(.keyUnavailable, "--key needs the JWE package, which this build does not include yet")
    }
}
