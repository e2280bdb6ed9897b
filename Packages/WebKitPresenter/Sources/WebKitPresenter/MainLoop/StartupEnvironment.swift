import Foundation

/// What ``GTKMainLoop/start()`` sets in the environment before GTK starts, as a value: decided from the
/// environment and the GPU render nodes the process can open, applied by the caller (`setenv`, never
/// overwriting a variable that is already set).
///
/// - Nothing on disk: `MESA_SHADER_CACHE_DISABLE=true` (Mesa's shader cache under `XDG_CACHE_HOME`) and
///   `__GL_SHADER_DISK_CACHE=0` (NVIDIA's under `HOME`), for this process and WebKit's, which inherit them.
/// - No shader compiling for a first frame drawn in software: when OpenGL would be Mesa's software
///   rasteriser (llvmpipe: no GPU render node the process can open, or `LIBGL_ALWAYS_SOFTWARE`, or a
///   software `GALLIUM_DRIVER`), GTK's GL renderer would compile its shaders on the CPU at every start
///   (hundreds of milliseconds, since the cache is off) for a window it then draws on the CPU anyway, so
///   `GSK_RENDERER=cairo` draws GTK's windows with cairo, and WebKit's pages are composited without GL
///   (`WEBKIT_DISABLE_COMPOSITING_MODE=1`). With a GPU, GTK keeps its GL renderer: the driver compiles
///   its few shaders in milliseconds.
struct StartupEnvironment: Equatable {
    /// The variables to set, in order, each only when the environment does not already have it.
    var variables: [(name: String, value: String)]

    static func == (a: Self, b: Self) -> Bool {
        a.variables.map(\.name) == b.variables.map(\.name) && a.variables.map(\.value) == b.variables.map(\.value)
    }

    /// The choice for `environment` when the process can open `renderNodes` (paths of `/dev/dri/renderD*`).
    static func choose(environment: [String: String], renderNodes: [String]) -> StartupEnvironment {
        var variables = [("MESA_SHADER_CACHE_DISABLE", "true"), ("__GL_SHADER_DISK_CACHE", "0")]
        if rendersInSoftware(environment: environment, renderNodes: renderNodes) {
            variables.append(("GSK_RENDERER", "cairo"))
            variables.append(("WEBKIT_DISABLE_COMPOSITING_MODE", "1"))
        }
        return StartupEnvironment(variables: variables.filter { environment[$0.0] == nil })
    }

    /// Whether Mesa would rasterise OpenGL on the CPU.
    static func rendersInSoftware(environment: [String: String], renderNodes: [String]) -> Bool {
        if let forced = environment["LIBGL_ALWAYS_SOFTWARE"], !["", "0", "false"].contains(forced.lowercased()) {
            return true
        }
        if let driver = environment["GALLIUM_DRIVER"], ["llvmpipe", "softpipe", "swr"].contains(driver.lowercased()) {
            return true
        }
        return renderNodes.isEmpty
    }

    /// The GPU render nodes this process may open for reading and writing.
    static func openableRenderNodes(directory: String = "/dev/dri") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("renderD") }.map { directory + "/" + $0 }.filter {
            access($0, R_OK | W_OK) == 0
        }
    }

    /// The choice for this process, now.
    static var current: StartupEnvironment {
        choose(environment: ProcessInfo.processInfo.environment, renderNodes: openableRenderNodes())
    }

    /// Sets every variable that is still unset.
    func apply() {
        for (name, value) in variables { setenv(name, value, 0) }
    }

    /// Where WebKit's process sandbox (bubblewrap) records each web process it starts:
    /// `<runtime dir>/.flatpak/webkit-<this pid>-<n>/bwrapinfo.json` (for the desktop portal), never removed
    /// by WebKit. The runtime directory is GLib's `g_get_user_runtime_dir()`: `XDG_RUNTIME_DIR`, else the
    /// cache directory.
    static func sandboxRecordsDirectory(environment: [String: String]) -> String? {
        let runtime =
            environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.cache" }
        return runtime.map { $0 + "/.flatpak" }
    }

    /// The records of `pid`'s web processes among `names` (the entries of the records directory).
    static func sandboxRecords(of pid: Int32, among names: [String]) -> [String] {
        let prefix = "webkit-\(pid)-"
        return names.filter { $0.hasPrefix(prefix) && Int($0.dropFirst(prefix.count)) != nil }
    }

    /// Removes this process's web-process records (at exit: the web processes are gone by then), and the
    /// `.flatpak` directory when that leaves it empty.
    static func removeSandboxRecords() {
        guard let directory = sandboxRecordsDirectory(environment: ProcessInfo.processInfo.environment) else { return }
        let files = FileManager.default
        let names = (try? files.contentsOfDirectory(atPath: directory)) ?? []
        for name in sandboxRecords(of: getpid(), among: names) { try? files.removeItem(atPath: directory + "/" + name) }
        if (try? files.contentsOfDirectory(atPath: directory))?.isEmpty == true { rmdir(directory) }
    }
}
