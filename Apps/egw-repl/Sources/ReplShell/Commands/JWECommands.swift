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
            ("alg", header.alg.map(shown) ?? "(absent)"), ("enc", header.enc.map(shown) ?? "(absent)"),
            ("kid", header.kid.map(shown) ?? "(absent)"),
            ("header", header.json),
        ])
    }
}
