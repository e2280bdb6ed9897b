internal import EGWWire
import Foundation
internal import JWE

/// The card-encryption key set: which key is used, and for how long.
extension GatewayAPI {
    // MARK: - Card-encryption key

    /// A key chosen from the key set, and how long the gateway lets it be kept (`Cache-Control: max-age`;
    /// 0: not at all). Whether it is kept is the card machine's decision (`KeyCacheChange`).
    struct KeyChoice: Equatable, Sendable {
        var key: EncryptionKey
        var maxAge: TimeInterval
    }

    /// Picks the RSA key whose `alg` is `RSA-OAEP-256` (and `use`, when present, `enc`), of at least
    /// 2048 bits, and reads `Cache-Control: max-age`. Failures are `encryptionKeyUnavailable`.
    static func decodeKeySet(_ result: Result<HTTPResponse, TransportError>) -> Result<KeyChoice, FlowError> {
        let source = "GET jwks.json"
        func unavailable(_ cause: FlowError) -> FlowError {
            cause.code == .encryptionKeyUnavailable
                ? cause
                : cause.wrapped(
                    as: .encryptionKeyUnavailable, "the card-encryption key could not be fetched (\(cause.code))")
        }
        let response: HTTPResponse
        switch result {
        case .failure(let error): return .failure(unavailable(transportFailure(error, source: source)))
        case .success(let value): response = value
        }
        guard response.status == 200 else {
            return .failure(unavailable(httpFailure(response, source: source, idempotent: true)))
        }
        // One strict parse (EGWWire): a duplicated member anywhere, such as a second "n" or "alg" in a key,
        // refuses the whole set instead of letting a parser pick one of the two.
        let keySet: JSONValue
        do {
            keySet = try StrictJSONParser.parse(response.body)
        } catch {
            return .failure(
                unavailable(FlowError(.invalidResponse, "the key set is not strict JSON: \(error)", source: source)))
        }
        guard case .array(let keys)? = keySet[member: "keys"] else {
            return .failure(
                unavailable(
                    FlowError(
                        .invalidResponse, "the key set is not a JSON object with a \"keys\" array", source: source)))
        }
        var refusal = "the key set holds no RSA key with alg RSA-OAEP-256 for encryption"
        for jwk in keys {
            guard jwk[member: "kty"] == .string("RSA"),
                jwk[member: "alg"] == .string(JWEPolicy.keyManagementAlgorithm)
            else {
                continue
            }
            if let use = jwk[member: "use"], use != .string("enc") { continue }
            do {
                let publicKey = try RSAPublicKey(jwk: jwk)
                guard publicKey.bitCount >= 2048 else {
                    refusal = "the key is \(publicKey.bitCount) bits; at least 2048 are required"
                    continue
                }
                return .success(
                    KeyChoice(key: EncryptionKey(publicKey), maxAge: maxAge(response.header("Cache-Control"))))
            } catch {
                refusal =
                    error.code == .keyTooSmall
                    ? "the key is under 2048 bits" : "the key cannot be used (\(error.code))"
            }
        }
        return .failure(FlowError(.encryptionKeyUnavailable, refusal, source: source))
    }

    /// Seconds from `Cache-Control: max-age=N` (0 without it, or with `no-store`/`no-cache`), at most a day.
    static func maxAge(_ cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return 0 }
        var age: TimeInterval = 0
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            switch parts.first {
            case "no-store", "no-cache": return 0
            case "max-age":
                if parts.count == 2,
                    let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                    seconds > 0
                {
                    age = TimeInterval(min(seconds, 86_400))
                }
            default: break
            }
        }
        return age
    }
}
