import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Ctrl-C, caught with a Dispatch signal source instead of killing the shell.
///
/// SIGINT's default action is turned off (`SIG_IGN`) and a `DispatchSource`
/// on a private queue counts deliveries. The shell compares the count before
/// and after waiting for a payment: a change means "cancel the payment". At the
/// idle prompt on a terminal, Ctrl-C drops the line being typed and gives a fresh
/// prompt (`idle`, see `interruptLineBeingTyped`); in a script it ends the
/// process with status 130.
@MainActor
final class Interrupts {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
        /// A payment is running: Ctrl-C cancels it.
        let busy = Atomic<Bool>(false)
        /// Outside a payment, Ctrl-C ends the process (scripts); else `idle` runs (terminal).
        let exitsWhenIdle: Bool

        init(exitsWhenIdle: Bool) {
            self.exitsWhenIdle = exitsWhenIdle
        }
    }

    private let counter: Counter
    private let source: any DispatchSourceSignal

    /// Installs the handler. With `exitsWhenIdle` (scripts and piped input), Ctrl-C
    /// outside a payment ends the process with status 130, as a shell would; otherwise
    /// `idle` runs (on the handler's queue) when no payment is running.
    ///
    /// `wake` is called after each delivery (``EventLoop/wake``), so a payment's wait notices at once.
    init(
        exitsWhenIdle: Bool, wake: @escaping @Sendable () -> Void = EventLoop.mainRunLoop.wake,
        idle: @escaping @Sendable () -> Void = {}
    ) {
        counter = Counter(exitsWhenIdle: exitsWhenIdle)
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "egw-repl.sigint"))
        let counter = self.counter
        source.setEventHandler { @Sendable in
            counter.value.add(1, ordering: .sequentiallyConsistent)
            if !counter.busy.load(ordering: .sequentiallyConsistent) {
                if counter.exitsWhenIdle {
                    Platform.write("\negw-repl: interrupted\n", to: 2)
                    _exit(130)
                }
                idle()
            }
            wake()
        }
        source.resume()
    }

    /// Whether a payment is running (Ctrl-C then cancels it instead of anything else).
    var isBusy: Bool {
        get { counter.busy.load(ordering: .sequentiallyConsistent) }
        set { counter.busy.store(newValue, ordering: .sequentiallyConsistent) }
    }

    /// How many Ctrl-C deliveries have arrived since start (coalesced ones count once).
    var received: Int {
        counter.value.load(ordering: .sequentiallyConsistent)
    }
}
