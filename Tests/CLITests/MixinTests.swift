import Foundation
import KernelTestSupport
import Testing

// The monitoring mixin in Deploy/ end to end: a real Prometheus scrapes a real `netpath
// serve`, every panel of the Grafana dashboard is evaluated there and must return data, and
// a real Alertmanager delivers the shipped "path lost" alert to a webhook, then its
// resolution.

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct MixinTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Deploy")

    /// Every `expr` of the dashboard's panels, with Grafana's variables as a query of all
    /// instances over a minute would have them.
    static func panelQueries() throws -> [(title: String, expr: String)] {
        let data = try Data(contentsOf: deploy.appendingPathComponent("netpath-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        return panels.flatMap { panel -> [(String, String)] in
            let targets = panel["targets"] as? [[String: Any]] ?? []
            return targets.compactMap { target in
                (target["expr"] as? String).map { expr in
                    (panel["title"] as? String ?? "?", expr.replacingOccurrences(of: "$instance", with: ".+")
                        .replacingOccurrences(of: "$__rate_interval", with: "1m"))
                }
            }
        }
    }

    /// A webhook receiver, as Alertmanager's webhook_config posts to: each POST body on a line.
    static let receiver = """
    import http.server, json, sys
    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            print(json.dumps(json.loads(body), separators=(",", ":")), flush=True)
            self.send_response(200); self.end_headers()
        def log_message(self, *a): pass
    s = http.server.HTTPServer(("127.0.0.1", 0), H)
    print(s.server_address[1], flush=True)
    s.serve_forever()
    """

    @Test func theDashboardHasDataAndThePathLostAlertReachesAWebhookAndResolves() throws {
        let prometheusPath = try requireProgram("/usr/bin/prometheus", package: "prometheus")
        let alertmanagerPath = try requireProgram("/usr/bin/prometheus-alertmanager", package: "prometheus-alertmanager")
        let lab = try ProbeLab()
        defer { lab.remove() }
        let online = try onlineServeNamespace("mixin")
        defer { online.remove() }
        let serving = try Serving(["--netns", lab.client.name, "--netns", online.name, "--probe-interfaces",
                                   "--url", "\(ProbeCLITests.server)/204", "--probe-timeout", "2"])
        defer { _ = serving.stop() }

        let webhook = try RunningTool(["-c", MixinTests.receiver], executable: "/usr/bin/python3")
        defer { webhook.signal(SIGKILL); _ = webhook.finish(seconds: 5) }
        let hookPort = try #require(webhook.nextLine().flatMap { UInt16($0) }, "the webhook receiver did not start")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-mixin-\(online.name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (amPort, promPort) = (try freePort(), try freePort())
        try """
        route:
          receiver: hook
          group_by: [alertname, netns]
          group_wait: 1s
          group_interval: 1s
          repeat_interval: 1h
        receivers:
          - name: hook
            webhook_configs:
              - url: http://127.0.0.1:\(hookPort)/
                send_resolved: true
        """.write(toFile: directory + "/alertmanager.yml", atomically: true, encoding: .utf8)
        let alertmanager = try Child(alertmanagerPath, ["--config.file=\(directory)/alertmanager.yml", "--storage.path=\(directory)/am",
                                                        "--web.listen-address=127.0.0.1:\(amPort)",
                                                        // No HA cluster: one instance, and no wait of up to a
                                                        // minute for gossip to settle before notifying.
                                                        "--cluster.listen-address="])
        defer { alertmanager.kill() }

        let rules = try String(contentsOf: MixinTests.deploy.appendingPathComponent("netpath.rules.yml"), encoding: .utf8)
        try rules.replacingOccurrences(of: "for: 2m", with: "for: 2s").write(toFile: directory + "/rules.yml", atomically: true, encoding: .utf8)
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files: [rules.yml]
        alerting:
          alertmanagers:
            - static_configs: [{targets: ["127.0.0.1:\(amPort)"]}]
        scrape_configs:
          - job_name: netpath
            static_configs: [{targets: ["127.0.0.1:\(serving.port)"]}]
        """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = try Child(prometheusPath, ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                                                    "--web.listen-address=127.0.0.1:\(promPort)"])
        defer { prometheus.kill() }

        func query(_ expr: String) -> String {
            let encoded = expr.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expr
            return (try? HTTPExchange.send("GET /api/v1/query?query=\(encoded) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                           port: promPort).body) ?? ""
        }
        func hasData(_ answer: String) -> Bool { answer.contains("\"status\":\"success\"") && !answer.contains("\"result\":[]") }
        func waitForData(_ expr: String, seconds: Double = 40) -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var last = query(expr)
            while !hasData(last) && Date() < deadline {
                HTTPExchange.pause()
                last = query(expr)
            }
            return last
        }
        let satisfied = "netpath_path_status{netns=\"\(online.name)\",status=\"satisfied\"} == 1"
        #expect(hasData(waitForData(satisfied)), "Prometheus never saw the namespace satisfied")
        #expect(hasData(waitForData("netpath_connectivity{netns=\"\(lab.client.name)\",connectivity=\"full\"} == 1")))

        // The path is lost: the shipped alert fires through Alertmanager to the webhook.
        try online.ip("route del default")
        func nextNotification(_ status: String, seconds: Double = 60) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, let line = webhook.nextLine(seconds: max(0.1, deadline.timeIntervalSinceNow)) {
                if line.contains("\"alertname\":\"NetPathNotSatisfied\""), line.contains("\"netns\":\"\(online.name)\""),
                   line.contains("\"status\":\"\(status)\"") { return line }
            }
            return nil
        }
        let firing = nextNotification("firing")
        #expect(firing != nil, "no firing NetPathNotSatisfied for \(online.name) reached the webhook")

        // Every panel has data now (the diagnosis panel needs a namespace without a path).
        for (title, expr) in try MixinTests.panelQueries() {
            let answer = waitForData(expr)
            #expect(hasData(answer), "panel \"\(title)\": \(expr) → \(answer.prefix(300))")
        }

        try online.ip("route add default via 10.90.0.1")
        let resolved = nextNotification("resolved")
        #expect(resolved != nil, "the resolution of NetPathNotSatisfied for \(online.name) did not reach the webhook")
    }
}
