// The network options of `authd serve` (config/option_groups.hpp).
#include <cctype>
#include <regex>

#include <CLI/CLI.hpp>

#include "config/option_groups.hpp"

namespace authd {
namespace {

// An origin is scheme://host[:port], nothing more: no wildcard (a token
// that any site could use is what CORS exists to prevent), no path. It is
// stored as browsers send it (RFC 6454 serialisation): scheme and host in
// lower case, no port when it is the scheme's default, so that the exact
// comparison in http/cors.cpp matches what the operator meant.
CLI::Validator cors_origin_check() {
  return CLI::Validator(
      [](std::string& origin) -> std::string {
        static const std::regex kOrigin(
            R"((https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?)", std::regex::icase);
        if (origin == "*") return "a wildcard is not allowed: list each origin";
        std::smatch parts;
        if (!std::regex_match(origin, parts, kOrigin))
          return "'" + origin + "' is not an origin such as https://app.example.com";
        auto lower = [](std::string text) {
          for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          return text;
        };
        std::string scheme = lower(parts[1].str());
        std::string normalised = scheme + "://" + lower(parts[2].str());
        if (parts[4].matched) {
          unsigned port = std::stoul(parts[4].str());
          if (port == 0 || port > 65535) return "'" + origin + "' has no valid port (1 to 65535)";
          if (port != (scheme == "https" ? 443u : 80u)) normalised += ":" + std::to_string(port);
        }
        origin = normalised;
        return std::string();
      },
      "ORIGIN");
}

}  // namespace

void add_listener_options(CLI::App& app, Config& c) {
  app.add_option("--listen", c.listen, "Address and port to listen on (port 0: any free port)")
      ->envname("AUTHD_LISTEN")
      ->capture_default_str();
  app.add_option("--base-path", c.http.base_path,
                 "Optional path prefix for every route, e.g. /auth")
      ->envname("AUTHD_BASE_PATH")
      ->check([](const std::string& v) {
        return v.empty() || (v.front() == '/' && v.back() != '/')
                   ? std::string()
                   : "must start with / and not end with /";
      });
  app.add_option("--public-url", c.public_url,
                 "Public base URL of authd, used in the links of reset mails")
      ->envname("AUTHD_PUBLIC_URL")
      ->capture_default_str();
  app.add_option("--port-file", c.port_file,
                 "Write the bound port to this file once listening (for scripts and tests)")
      ->envname("AUTHD_PORT_FILE");
  app.add_option("--admin-listen", c.admin_listen,
                 "Address and port of the management listener (/metrics, /healthz, admin "
                 "routes; port 0: any free port), or off")
      ->envname("AUTHD_ADMIN_LISTEN")
      ->check([](const std::string& v) {
        return v == "off" || parse_endpoint(v) ? std::string() : "expected HOST:PORT or off";
      })
      ->capture_default_str();
  app.add_option("--admin-port-file", c.admin_port_file,
                 "Write the management listener's bound port to this file once listening")
      ->envname("AUTHD_ADMIN_PORT_FILE");
}

void add_connection_options(CLI::App& app, Config& c) {
  app.add_option("--max-connections", c.http.connection_limits.total,
                 "Open connections per listener; past it idle ones are closed to make room, "
                 "else new ones are closed at once")
      ->envname("AUTHD_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--max-connections-per-client", c.http.connection_limits.per_client,
                 "Open connections per client address (an IPv6 /64); past it the client's idle "
                 "ones are closed to make room, else new ones are closed at once")
      ->envname("AUTHD_MAX_CONNECTIONS_PER_CLIENT")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--io-threads", c.io_threads,
                 "Threads serving connections and running their reads (0: one per core)")
      ->envname("AUTHD_IO_THREADS")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  app.add_option("--max-body-bytes", c.http.max_body, "Largest request body accepted (else 413)")
      ->envname("AUTHD_MAX_BODY_BYTES")
      ->check(CLI::Range(256, 1024 * 1024))
      ->capture_default_str();
  add_duration(app, "--header-timeout", c.http.header_timeout, "AUTHD_HEADER_TIMEOUT",
               "Time a client has to send a request's header and body");
  add_duration(app, "--idle-timeout", c.http.idle_timeout, "AUTHD_IDLE_TIMEOUT",
               "Idle keep-alive connections are closed after this");
  add_duration(app, "--drain-timeout", c.http.drain_timeout, "AUTHD_DRAIN_TIMEOUT",
               "On SIGTERM/SIGINT, longest wait for requests in flight");
}

void add_browser_and_proxy_options(CLI::App& app, Config& c) {
  app.add_option("--cors-origins", c.http.cors_origins,
                 "Origins allowed to call authd from a browser, exactly as browsers send them "
                 "(https://app.example.com), comma-separated; none: CORS off")
      ->envname("AUTHD_CORS_ORIGINS")
      ->delimiter(',')
      ->transform(cors_origin_check());
  add_duration(app, "--cors-max-age", c.http.cors_max_age, "AUTHD_CORS_MAX_AGE",
               "How long browsers may cache a CORS preflight answer");
  app.add_flag("--proxy-protocol", c.http.proxy_protocol,
               "Every connection starts with a PROXY protocol header (v1 or v2) from one of "
               "--trusted-proxies, naming the client; other connections are closed "
               "(interface.md 13.2)")
      ->envname("AUTHD_PROXY_PROTOCOL");
  app.add_option("--session-cookie", c.http.session_cookie.name,
                 "Browser sessions: login also sets a cookie of this name, which the bearer "
                 "routes accept when no Authorization header is sent (interface.md 13.5); "
                 "none: off")
      ->envname("AUTHD_SESSION_COOKIE")
      ->type_name("NAME")
      ->check([](const std::string& name) {
        // RFC 6265 4.1.1: a cookie name is an RFC 9110 token.
        static const std::regex kToken(R"([A-Za-z0-9!#$%&'*+.^_`|~-]+)");
        return std::regex_match(name, kToken)
                   ? std::string()
                   : "'" + name + "' is not a cookie name (letters, digits and !#$%&'*+-.^_`|~)";
      });
  app.add_option_function<std::vector<std::string>>(
         "--trusted-proxies",
         [&c](const std::vector<std::string>& texts) {
           c.http.trusted_proxies.clear();
           for (const std::string& text : texts) {
             auto network = IpNetwork::parse(text);
             if (!network)
               throw CLI::ValidationError("--trusted-proxies",
                                          "'" + text +
                                              "' is not a network such as 10.0.0.0/8, "
                                              "2001:db8::/32 or 127.0.0.1 (no host bits past the "
                                              "prefix)");
             c.http.trusted_proxies.push_back(*network);
           }
         },
         "Reverse proxies (CIDR networks, IPv4 or IPv6, comma-separated) whose X-Forwarded-For "
         "or Forwarded names the client; none: the TCP peer is the client")
      ->envname("AUTHD_TRUSTED_PROXIES")
      ->delimiter(',')
      ->type_name("CIDR");
}

void add_tls_options(CLI::App& app, Config& c) {
  app.add_option("--tls-cert", c.tls_cert,
                 "PEM file of the certificate and its chain: both listeners speak HTTPS only "
                 "(TLS 1.2 or later); SIGHUP re-reads it (interface.md 13.3)")
      ->envname("AUTHD_TLS_CERT")
      ->type_name("FILE");
  app.add_option("--tls-key", c.tls_key,
                 "PEM file of the certificate's private key (unencrypted, readable by authd "
                 "alone); SIGHUP re-reads it")
      ->envname("AUTHD_TLS_KEY")
      ->type_name("FILE");
}

}  // namespace authd
