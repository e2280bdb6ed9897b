@testable import JWE

/// The code `body` failed with, or nil when it succeeded.
func errorCode<T>(_ body: () throws(JWEError) -> T) -> JWEError.Code? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}

/// The error `body` failed with, or nil when it succeeded.
func jweError<T>(_ body: () throws(JWEError) -> T) -> JWEError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
