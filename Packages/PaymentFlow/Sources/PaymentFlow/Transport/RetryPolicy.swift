import Dispatch
import Foundation

/// Bounded retries with jitter, for idempotent reads only.
///
/// A request is retried when its method is `GET` or `HEAD` and the attempt
/// ended in a transient failure: a transport `.connect`, `.timeout` or
/// `.reset`, or an HTTP 5xx response. Anything else (a POST, a 4xx, a TLS or
/// pinning failure, an oversized or non-HTTP response) is final at once.
///
/// The delay before retry `n` (1-based) is "equal jitter" exponential backoff:
/// with `ceiling = min(maxDelay, baseDelay * 2^(n-1))`, it is
/// `ceiling / 2 + random * ceiling / 2`, `random` drawn from `unitRandom`
/// in `0..<1`. The random source and the sleeper are injected so tests run
/// without waiting on the wall clock.
struct RetryPolicy: Sendable {
    /// Total attempts including the first (1 = never retry).
    var maxAttempts: Int
    /// The backoff before the first retry, before jitter.
    var baseDelay: TimeInterval
    /// The largest backoff before jitter.
    var maxDelay: TimeInterval
    /// A number in `0..<1`.
    var unitRandom: @Sendable () -> Double
    /// Calls its closure after the given number of seconds, asynchronously.
    var sleep: @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void
    /// The whole operation's deadline in seconds from its first attempt, shared with the caller's
    /// watchdog: no retry starts that could not finish (its backoff plus the request's timeout) within
    /// it. `nil`: attempts alone bound the retries.
    var budget: TimeInterval?
    /// Seconds that count suspended time (``SuspendAwareClock``), for `budget`.
    var now: @Sendable () -> TimeInterval

    init(
        maxAttempts: Int = 3,
        baseDelay: TimeInterval = 0.25,
        maxDelay: TimeInterval = 2,
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void = RetryPolicy.dispatchSleep,
        budget: TimeInterval? = nil,
        now: @escaping @Sendable () -> TimeInterval = { SuspendAwareClock.now() }
    ) {
        self.budget = budget
        self.now = now
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.unitRandom = unitRandom
        self.sleep = sleep
    }

    /// Three attempts, 0.25 s then 0.5 s backoff before jitter.
    static let standard = RetryPolicy()

    /// A single attempt.
    static let never = RetryPolicy(maxAttempts: 1)

    /// The live sleeper: a ``SuspendAwareClock`` timer (a backoff that spans a suspend ends on resume).
    static let dispatchSleep: @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void = { seconds, work in
        SuspendAwareClock.schedule(after: seconds, execute: work)
    }

    /// Whether `request` may be sent more than once.
    static func isIdempotentRead(_ request: HTTPRequest) -> Bool {
        let method = request.method.uppercased()
        return method == "GET" || method == "HEAD"
    }

    /// Whether `result` is a transient failure worth another attempt.
    static func isTransient(_ result: Result<HTTPResponse, TransportError>) -> Bool {
        switch result {
        case .success(let response):
            return (500...599).contains(response.status)
        case .failure(let error):
            switch error.kind {
            case .connect, .timeout, .reset:
                return true
            case .invalidURL, .insecureScheme, .tls, .pinningFailed, .responseTooLarge, .invalidResponse, .other:
                return false
            }
        }
    }

    /// Whether attempt number `attempt` (1-based) of `request`, which ended
    /// in `result`, should be followed by another.
    func shouldRetry(_ request: HTTPRequest, attempt: Int, result: Result<HTTPResponse, TransportError>) -> Bool {
        attempt < maxAttempts && Self.isIdempotentRead(request) && Self.isTransient(result)
    }

    /// The wait before retry number `retry` (1-based), jitter included.
    func delay(beforeRetry retry: Int) -> TimeInterval {
        let exponent = Double(max(0, min(retry - 1, 30)))
        let ceiling = min(maxDelay, baseDelay * pow(2, exponent))
        let random = min(max(unitRandom(), 0), 1)
        return ceiling / 2 + random * ceiling / 2
    }
}

/// An `HTTPTransport` that retries idempotent reads over `base` following
/// `policy`. The completion receives the last attempt's result, exactly once.
struct RetryingTransport: HTTPTransport, CancellableTransport, ConnectionPreparingTransport {
    /// The transport each attempt goes through.
    let base: any HTTPTransport
    /// When and how long to retry.
    let policy: RetryPolicy
    /// Told about each retry before its backoff starts (attempt that failed, its result, the delay).
    let onRetry: (@Sendable (Int, Result<HTTPResponse, TransportError>, TimeInterval) -> Void)?

    init(
        base: any HTTPTransport, policy: RetryPolicy = .standard,
        onRetry: (@Sendable (Int, Result<HTTPResponse, TransportError>, TimeInterval) -> Void)? = nil
    ) {
        self.base = base
        self.policy = policy
        self.onRetry = onRetry
    }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        attempt(1, request, started: policy.now(), cancellation: nil, completion)
    }

    /// Passed on to `base` when it can open connections ahead; nothing otherwise.
    func prepareConnection(to url: URL) {
        (base as? any ConnectionPreparingTransport)?.prepareConnection(to: url)
    }

    /// `send`, with the cancellation passed to each attempt; a cancelled operation is not retried.
    func send(
        _ request: HTTPRequest, cancellation: TransferCancellation?,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        attempt(1, request, started: policy.now(), cancellation: cancellation, completion)
    }

    private func attempt(
        _ number: Int, _ request: HTTPRequest, started: TimeInterval, cancellation: TransferCancellation?,
        _ completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        let handler: @Sendable (Result<HTTPResponse, TransportError>) -> Void = { result in
            guard cancellation?.isCancelled != true, policy.shouldRetry(request, attempt: number, result: result) else {
                completion(result)
                return
            }
            let delay = policy.delay(beforeRetry: number)
            if let budget = policy.budget, policy.now() - started + delay + request.timeout > budget {
                completion(result)  // a retry could not finish before the operation's deadline
                return
            }
            onRetry?(number, result, delay)
            policy.sleep(delay) {
                attempt(number + 1, request, started: started, cancellation: cancellation, completion)
            }
        }
        if let cancellable = base as? any CancellableTransport {
            cancellable.send(request, cancellation: cancellation, completion: handler)
        } else {
            base.send(request, completion: handler)
        }
    }
}
