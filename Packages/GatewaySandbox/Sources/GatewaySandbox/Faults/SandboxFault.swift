/// A misbehaviour the sandbox performs on purpose: on one endpoint, of one kind, on a schedule.
///
/// ```swift
/// sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .status(503), schedule: .next(2)))
/// sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .dropConnection,
///                             schedule: .probability(0.3, seed: 42)))
/// ```
/// Faults are checked in the order they were injected. Latency and key-rotation faults are
/// always consulted and combine (delays add up); of the faults that replace the response, the
/// first that fires decides it and the later ones are not consulted (nor consumed). A probability draw uses the fault's own generator,
/// seeded from `seed` or, when `nil`, from the sandbox seed and the fault's ordinal, so the
/// same sequence of requests meets the same faults on a replay.
public struct SandboxFault: Sendable, Equatable, CustomStringConvertible {
    /// Which endpoint the fault applies to (`.any` for all).
    public var endpoint: SandboxEndpoint
    /// What the sandbox does.
    public var kind: Kind
    /// When it does it.
    public var schedule: Schedule
    /// Whether the sandbox still handles the request (and changes its state) before the fault
    /// replaces the response. `true` models a response lost after the gateway acted.
    public var processesRequest: Bool

    /// Creates a fault. `processesRequest` defaults to the kind's `defaultProcessesRequest`.
    public init(endpoint: SandboxEndpoint, kind: Kind, schedule: Schedule = .next(1), processesRequest: Bool? = nil) {
        self.endpoint = endpoint
        self.kind = kind
        self.schedule = schedule
        self.processesRequest = processesRequest ?? kind.defaultProcessesRequest
    }

    /// `endpoint kind schedule`, e.g. `card-session-create status(503) next(2)`.
    public var description: String { "\(endpoint) \(kind) \(schedule)" }

    /// What an injected fault does.
    public struct Kind: Sendable, Equatable, CustomStringConvertible {
        enum Storage: Sendable, Equatable {
            case latency(Duration)
            case status(Int, errorCode: String?, message: String?)
            case statusWithoutBody(Int)
            case malformedBody
            case truncatedBody
            case dropConnection
            case rotateKey
        }

        let storage: Storage

        /// Waits `delay` before handling the request (combines with the other faults).
        public static func latency(_ delay: Duration) -> Kind { Kind(storage: .latency(delay)) }

        /// Answers `status` (100...599) with the gateway's JSON error body
        /// `{"error": {"code": errorCode, "message": message}}`; the code defaults to the one
        /// GATEWAY.md gives for that status (`INTERNAL_ERROR` for 5xx, `SANDBOX_FAULT` otherwise).
        public static func status(_ status: Int, errorCode: String? = nil, message: String? = nil) -> Kind {
            Kind(storage: .status(status, errorCode: errorCode, message: message))
        }

        /// Answers `status` with an empty body and no `Content-Type`.
        public static func statusWithoutBody(_ status: Int) -> Kind { Kind(storage: .statusWithoutBody(status)) }

        /// The normal status with a body that is not valid JSON (and not the page) but is complete.
        public static let malformedBody = Kind(storage: .malformedBody)

        /// The normal status and `Content-Length`, but the connection closes halfway through the body.
        public static let truncatedBody = Kind(storage: .truncatedBody)

        /// The connection is closed without any response.
        public static let dropConnection = Kind(storage: .dropConnection)

        /// The card-encryption key is replaced before the request is handled: the JWKS serves
        /// the new key, and a card session encrypted to the old `kid` gets `422 UNKNOWN_KEY`.
        public static let rotateKey = Kind(storage: .rotateKey)

        /// The name the JSON API and the request log use: `latency`, `status`, `status-no-body`,
        /// `malformed`, `truncated`, `drop`, `rotate-key`.
        public var name: String {
            switch storage {
            case .latency: "latency"
            case .status: "status"
            case .statusWithoutBody: "status-no-body"
            case .malformedBody: "malformed"
            case .truncatedBody: "truncated"
            case .dropConnection: "drop"
            case .rotateKey: "rotate-key"
            }
        }

        /// Whether a fault of this kind lets the request be handled first unless told otherwise:
        /// true for latency, malformed and truncated bodies and key rotation (they need or keep the
        /// real response); false for a forced status and a dropped connection (the request is lost).
        public var defaultProcessesRequest: Bool {
            switch storage {
            case .latency, .malformedBody, .truncatedBody, .rotateKey: true
            case .status, .statusWithoutBody, .dropConnection: false
            }
        }

        /// The name with its argument, e.g. `status(503)`, `latency(250 ms)`.
        public var description: String {
            switch storage {
            case .latency(let delay): "latency(\(Self.milliseconds(delay)) ms)"
            case .status(let status, let code, _): "status(\(status)\(code.map { ", " + $0 } ?? ""))"
            case .statusWithoutBody(let status): "status-no-body(\(status))"
            case .malformedBody, .truncatedBody, .dropConnection, .rotateKey: name
            }
        }

        static func milliseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
    }

    /// When an injected fault fires.
    public struct Schedule: Sendable, Equatable, CustomStringConvertible {
        enum Storage: Sendable, Equatable {
            case next(Int)
            case probability(Double, seed: UInt64?)
        }

        let storage: Storage

        /// The next `count` matching requests (at least 1), then the fault is removed.
        public static func next(_ count: Int) -> Schedule { Schedule(storage: .next(max(1, count))) }

        /// Each matching request with probability `p` (clamped to 0...1), drawn from a generator
        /// seeded with `seed` (or derived from the sandbox seed when `nil`). Stays until cleared.
        public static func probability(_ p: Double, seed: UInt64? = nil) -> Schedule {
            Schedule(storage: .probability(p.isNaN ? 0 : min(1, max(0, p)), seed: seed))
        }

        /// Every matching request until cleared.
        public static let always = Schedule.probability(1)

        /// `next(N)` or `probability(P, seed S)`.
        public var description: String {
            switch storage {
            case .next(let count): "next(\(count))"
            case .probability(let p, let seed): "probability(\(p)\(seed.map { ", seed \($0)" } ?? ""))"
            }
        }
    }
}
