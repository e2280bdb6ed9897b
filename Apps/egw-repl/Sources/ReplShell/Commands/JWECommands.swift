import JWE
import ReplCore

extension Shell {
    /// `jwe header TOKEN`: the decoded protected header, no decryption.
    func showJWEHeader(_ token: String) throws(ReplError) {
        let header: JWEProtectedHeader
        do {
            header = try JWEProtectedHeader(compact: token)
        } catch {
            throw ReplError(.commandFailed, "not a compact JWE: \(error.reason) (\(error.code.rawValue))")
        }
        if options.json {
            console.out(header.json)
            return
        }
        console.table([
            ("alg", header.alg ?? "(absent)"), ("enc", header.enc ?? "(absent)"), ("kid", header.kid ?? "(absent)"),
            ("header", header.json),
        ])
    }
}
