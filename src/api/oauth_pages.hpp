// The provider's own HTML pages (interface.md 17.4, 17.5): the error page
// of a request that cannot be sent back to the client (unknown client_id,
// unregistered redirect_uri, an expired waiting request) and the consent
// page. Both are rendered by the server from the templates
// src/web/oauth_error.html and src/web/consent.html, every value
// HTML-escaped, under the strict headers of the sign-in page (no script,
// no inline style, no framing, nothing from another origin).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/api.hpp"

namespace authd {

// An HTML page saying `message` (escaped), with `status`. `page_path` is
// the path it answers (as ConsentPageView::page_path): its style sheet is
// linked relative to it.
ApiResponse oauth_error_page(int status, std::string_view message,
                             std::string_view page_path = "/oauth2/authorize");

// What the consent page shows and where its form goes.
struct ConsentPageView {
  std::string request_id;   // the waiting request's id (authdar_...), posted back as `request`
  std::string client_name;  // shown as given: the operator named it
  std::vector<std::string> scopes;  // one sentence each (unknown ones shown by name)
  // The redirect_uri of the request, exactly as it will be answered: the
  // form's POST /oauth2/consent ends in a redirect there, and Chromium
  // applies the page's CSP form-action to every redirect of a form
  // submission, so its origin (or private-use scheme) is allowed there.
  std::string redirect_uri;
  // The path this page is served at, as authd sees it (no public URL
  // prefix): its links are made relative to it, so that a prefix works.
  std::string page_path = "/consent";
};

// 200 with the consent page: h1 > span#client-name, ul#scopes > li,
// form#consent (POST to oauth2/consent, hidden `request`, buttons #allow
// and #deny named `decision`). Its Referrer-Policy is same-origin, not
// no-referrer: a form POST under no-referrer carries `Origin: null`, which
// the consent route's same-origin check must refuse.
ApiResponse consent_page(const ConsentPageView& view);

// The sentence the consent page shows for `scope` ("" for an unknown one).
std::string_view scope_sentence(std::string_view scope);

// interface.md 17.13: the sign-out pages, under the same headers. The
// error page of a sign-out request (heading "Sign-out problem").
ApiResponse logout_error_page(int status, std::string_view message,
                              std::string_view page_path = "/oauth2/logout");

// What the sign-out confirmation shows and posts back.
struct LogoutPageView {
  std::string client_name;  // "" when no client is known
  std::string form_token;   // bound to the browser's session
  // The request's parameters, posted back as hidden fields.
  std::vector<std::pair<std::string, std::string>> fields;
  // The post_logout_redirect_uri the answer may redirect to: its origin is
  // allowed in form-action (as ConsentPageView::redirect_uri).
  std::optional<std::string> redirect_uri;
  std::string page_path = "/oauth2/logout";
};

// 200 with the confirmation: h1#heading, span#client-name when known,
// form#logout (POST to oauth2/logout/confirm, hidden `token` and the
// fields, button #sign-out). Referrer-Policy same-origin, as the consent
// page's, so that its POST carries authd's Origin.
ApiResponse logout_page(const LogoutPageView& view);

// 200 with "You are signed out" (#heading, #message; #client-name when
// known).
ApiResponse signed_out_page(std::string_view client_name,
                            std::string_view page_path = "/oauth2/logout");

}  // namespace authd
