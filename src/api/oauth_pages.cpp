// The provider's pages (interface.md 17.5, 17.13): the sign-in page (GET
// /signin, /signin.js, with the reset page's style sheet), the consent
// page, the error page and the sign-out pages. Their sources are
// src/web/signin.html, signin.js, consent.html, oauth_error.html,
// logout.html and signed_out.html, embedded at build time; the HTML ones
// are Mustache templates, so that every value put in is HTML-escaped.
//
// Headers (17.5): the CSP of the other pages (api/pages.cpp) with
// `img-src 'self'` and `form-action 'self'`, X-Frame-Options: DENY,
// Referrer-Policy: no-referrer (same-origin on the consent page: see
// api/oauth_pages.hpp), nosniff, and Cache-Control: no-store as every
// answer. No Cross-Origin-Opener-Policy, unlike the other pages: a relying
// party that opens the sign-in in a pop-up needs its window.opener back
// when the pop-up lands on its redirect_uri.
#include "api/oauth_pages.hpp"

#include <cctype>
#include <optional>
#include <string>

#include <kainjow/mustache.hpp>

#include "api/errors.hpp"
#include "api/form_body.hpp"
#include "api/handlers.hpp"
#include "upstream/registry.hpp"
#include "web/assets.hpp"

namespace authd {
namespace {

namespace mustache = kainjow::mustache;

std::string security_policy(std::string_view form_action) {
  return "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
         "img-src 'self'; form-action " +
         std::string(form_action) +
         "; frame-ancestors 'none'; base-uri 'none'; require-trusted-types-for 'script'";
}

ApiResponse oidc_html_page(int status, std::string body, std::string_view form_action,
                           std::string_view referrer_policy) {
  ApiResponse response;
  response.status = status;
  response.body = std::move(body);
  response.content_type = "text/html; charset=utf-8";
  response.headers = {
      {"Content-Security-Policy", security_policy(form_action)},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", std::string(referrer_policy)},
      {"X-Content-Type-Options", "nosniff"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
  return response;
}

// The embedded template `name` rendered with `data`; nullopt when it is
// missing or does not parse (the build embeds and the tests render every
// one: cannot happen).
std::optional<std::string> render_template(std::string_view name, const mustache::data& data) {
  std::optional<std::string_view> source = web::asset(name);
  if (!source) return std::nullopt;
  mustache::mustache page{std::string(*source)};
  if (!page.is_valid()) return std::nullopt;
  std::string out = page.render(data);
  if (!page.is_valid()) return std::nullopt;
  return out;
}

// "../" once per folder of `path` ("/consent": "", "/oauth2/authorize/resume":
// "../../"): the way from the page to the public URL's root, whatever its
// prefix.
std::string way_to_root(std::string_view path) {
  std::string up;
  for (std::size_t i = 1; i < path.size(); ++i)
    if (path[i] == '/') up += "../";
  return up;
}

bool is_scheme(std::string_view scheme) {
  if (scheme.empty() || std::isalpha(static_cast<unsigned char>(scheme.front())) == 0) return false;
  for (char c : scheme)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '+' && c != '-' && c != '.')
      return false;
  return true;
}

bool is_host_and_port(std::string_view authority) {
  std::size_t colon = authority.find(':');
  std::string_view host = authority.substr(0, colon);
  if (host.empty()) return false;
  for (char c : host)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '.') return false;
  if (colon == std::string_view::npos) return true;
  std::string_view port = authority.substr(colon + 1);
  if (port.empty()) return false;
  for (char c : port)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  return true;
}

// The CSP source that allows `redirect_uri` as a form's redirect target:
// "https://host:port" for a web URI, the scheme alone ("com.example.app:")
// for a private-use one and for an IPv6 literal (which CSP's host-source
// cannot spell); "" when it cannot be written safely (then only 'self').
std::string redirect_source(std::string_view redirect_uri) {
  std::size_t colon = redirect_uri.find(':');
  if (colon == std::string_view::npos) return "";
  std::string scheme(redirect_uri.substr(0, colon));
  if (!is_scheme(scheme)) return "";
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Registration refuses these (17.3); never allowed as a form's target.
  for (std::string_view unsafe : {"javascript", "data", "blob", "filesystem", "file"})
    if (scheme == unsafe) return "";
  std::string_view rest = redirect_uri.substr(colon + 1);
  if ((scheme != "http" && scheme != "https") || !rest.starts_with("//")) return scheme + ":";
  rest.remove_prefix(2);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.starts_with('[')) return scheme + ":";
  if (!is_host_and_port(authority)) return "";
  return scheme + "://" + std::string(authority);
}

constexpr std::string_view kStylesheet = "reset.css";

}  // namespace

std::string_view scope_sentence(std::string_view scope) {
  if (scope == "openid") return "Know who you are (your account id)";
  if (scope == "profile") return "See your name and picture";
  if (scope == "email") return "See your e-mail address";
  if (scope == "phone") return "See your phone number";
  if (scope == "offline_access") return "Stay signed in when you are away";
  return "";
}

namespace {

ApiResponse titled_error_page(int status, std::string_view heading, std::string_view message,
                              std::string_view page_path) {
  mustache::data data;
  data.set("heading", std::string(heading));
  data.set("message", std::string(message));
  data.set("stylesheet", way_to_root(page_path) + std::string(kStylesheet));
  std::optional<std::string> body = render_template("oauth_error.html", data);
  if (!body) return error_response(500);
  return oidc_html_page(status, std::move(*body), "'none'", "no-referrer");
}

}  // namespace

ApiResponse oauth_error_page(int status, std::string_view message, std::string_view page_path) {
  return titled_error_page(status, "Sign-in problem", message, page_path);
}

ApiResponse consent_page(const ConsentPageView& view) {
  const std::string up = way_to_root(view.page_path);
  mustache::data scopes{mustache::data::type::list};
  for (const std::string& scope : view.scopes) {
    mustache::data item;
    item.set("name", scope);
    std::string_view sentence = scope_sentence(scope);
    item.set("sentence", sentence.empty() ? "Use the permission \u201c" + scope + "\u201d"
                                          : std::string(sentence));
    scopes.push_back(item);
  }
  mustache::data data;
  data.set("client_name", view.client_name);
  data.set("request_id", view.request_id);
  data.set("scopes", scopes);
  data.set("stylesheet", up + std::string(kStylesheet));
  data.set("action", up + "oauth2/consent");
  // The analyzer follows kainjow's constructors into a virtual call it
  // cannot resolve; mustache.hpp calls it on a fully built object.
  // NOLINTNEXTLINE(clang-analyzer-optin.cplusplus.VirtualCall)
  std::optional<std::string> body = render_template("consent.html", data);
  if (!body) return error_response(500);
  std::string form_action = "'self'";
  if (std::string source = redirect_source(view.redirect_uri); !source.empty())
    form_action += " " + source;
  return oidc_html_page(200, std::move(*body), form_action, "same-origin");
}

namespace {

// interface.md 17.5: a link to sign-up when it is open. The only page that
// signs up is the one of sign-in by mail (19.6, "#signup"). 18.2.4: one
// link per upstream provider, carrying the waiting request's id.
ApiResponse signin_page(const AuthPolicy& policy, const UpstreamRegistry* upstreams,
                        const std::string& request_id) {
  mustache::data data;
  data.set("signup", policy.signup_open && policy.email_signin);
  mustache::data providers{mustache::data::type::list};
  if (upstreams != nullptr) {
    for (const UpstreamProvider& p : upstreams->providers()) {
      mustache::data item;
      item.set("name", p.name);
      item.set("label", p.label);
      item.set("query", request_id.empty() ? std::string() : "?request=" + form_encode(request_id));
      providers.push_back(item);
    }
  }
  data.set("upstreams", providers);
  data.set("any_upstream", upstreams != nullptr && !upstreams->providers().empty());
  std::optional<std::string> body = render_template("signin.html", data);
  if (!body) return error_response(500);
  return oidc_html_page(200, std::move(*body), "'self'", "no-referrer");
}

}  // namespace

boost::asio::awaitable<ApiResponse> handle_signin_page(ApiContext& ctx, ApiRequest& request) {
  std::optional<FormParameters> query = parse_form(request.query);
  const std::string* id = query ? query->find("request") : nullptr;
  co_return signin_page(ctx.auth.policy, ctx.upstreams, id != nullptr ? *id : std::string());
}

boost::asio::awaitable<ApiResponse> handle_signin_script(ApiContext& /*ctx*/,
                                                         ApiRequest& /*request*/) {
  std::optional<std::string_view> content = web::asset("signin.js");
  if (!content) co_return error_response(500);
  ApiResponse response;
  response.body = std::string(*content);
  response.content_type = "text/javascript; charset=utf-8";
  response.headers = {
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
  co_return response;
}

// interface.md 17.13: the sign-out pages.
ApiResponse logout_error_page(int status, std::string_view message, std::string_view page_path) {
  // As in consent_page: the analyzer follows kainjow's constructors.
  // NOLINTNEXTLINE(clang-analyzer-optin.cplusplus.VirtualCall)
  return titled_error_page(status, "Sign-out problem", message, page_path);
}

ApiResponse logout_page(const LogoutPageView& view) {
  const std::string up = way_to_root(view.page_path);
  mustache::data fields{mustache::data::type::list};
  for (const auto& [name, value] : view.fields) {
    mustache::data field;
    field.set("name", name);
    field.set("value", value);
    fields.push_back(field);
  }
  mustache::data data;
  data.set("has_client", !view.client_name.empty());
  data.set("client_name", view.client_name);
  data.set("token", view.form_token);
  data.set("fields", fields);
  data.set("stylesheet", up + std::string(kStylesheet));
  data.set("action", up + "oauth2/logout/confirm");
  // As in consent_page: kainjow's constructors, fully built here.
  // NOLINTNEXTLINE(clang-analyzer-optin.cplusplus.VirtualCall)
  std::optional<std::string> body = render_template("logout.html", data);
  if (!body) return error_response(500);
  // The answer to the form may redirect to the client (as consent_page).
  std::string form_action = "'self'";
  if (view.redirect_uri)
    if (std::string source = redirect_source(*view.redirect_uri); !source.empty())
      form_action += " " + source;
  return oidc_html_page(200, std::move(*body), form_action, "same-origin");
}

ApiResponse signed_out_page(std::string_view client_name, std::string_view page_path) {
  mustache::data data;
  data.set("has_client", !client_name.empty());
  data.set("client_name", std::string(client_name));
  data.set("stylesheet", way_to_root(page_path) + std::string(kStylesheet));
  std::optional<std::string> body = render_template("signed_out.html", data);
  if (!body) return error_response(500);
  return oidc_html_page(200, std::move(*body), "'none'", "no-referrer");
}

}  // namespace authd
