import FoundationEssentials

/// The page's own files, served as they are on disk.
extension WebApp {
    static let files: [String: String] = [
        "/": "index.html", "/index.html": "index.html", "/app.js": "app.js", "/app.css": "app.css", "/icon.svg": "icon.svg",
    ]
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    func staticFile(_ path: String, method: String) throws -> WebResponse {
        guard method == "GET" || method == "HEAD" else { throw WebError(405, "\(method) is not allowed here") }
        guard let name = Self.files[path],
              let data = FileManager.default.contents(atPath: configuration.staticDirectory + "/" + name)
        else { throw WebError(404, "not found: \(path)") }
        let type = Self.types[String(name.split(separator: ".").last ?? "")] ?? "application/octet-stream"
        return WebResponse(status: 200, headers: [
            ("Content-Type", type), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
            ("Referrer-Policy", "no-referrer"),
        ], body: method == "HEAD" ? Data() : data)
    }
}
