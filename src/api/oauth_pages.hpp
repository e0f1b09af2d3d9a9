// The provider's own HTML pages (interface.md 17.4, 17.5): the error page
// of a request that cannot be sent back to the client (unknown client_id,
// unregistered redirect_uri, an expired waiting request) and the consent
// page. Both are rendered by the server from the templates
// src/web/oauth_error.html and src/web/consent.html, every value
// HTML-escaped, under the strict headers of the sign-in page (no script,
// no inline style, no framing, nothing from another origin).
#pragma once

#include <string>
#include <string_view>
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

}  // namespace authd
